/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
  testTimeout: 60000,
  // Suites start HTTP servers on loopback; two workers match the machine's two cores.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/plain-summary-reporter.js'],
};
