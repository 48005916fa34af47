/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
  testTimeout: 60000,
  // Suites start HTTP servers on loopback; two workers match the machine's two cores.
  maxWorkers: 2,
  // A worker's heap grows to about 1 GB over its suites (each suite loads the modules afresh); a worker above this is replaced after its
  // suite, so that none ends the run with a heap it cannot free within the 500 ms jest waits for its exit.
  workerIdleMemoryLimit: '256MB',
  reporters: ['default', '<rootDir>/test/support/plain-summary-reporter.js'],
};
