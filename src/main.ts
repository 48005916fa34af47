#!/usr/bin/env node
/**
 * Entry point. Kept tiny on purpose: tracing (when configured) must start
 * before the modules it instruments are loaded, so everything else is
 * required only after that.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { main } = require('./cli') as typeof import('./cli');

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`fatal: ${error.message}\n`);
    process.exitCode = 1;
  },
);
