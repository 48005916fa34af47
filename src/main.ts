#!/usr/bin/env node
/** Entry point, tiny on purpose: tracing must start before the modules it instruments load, so everything else is required after it. */
import { DEFAULT_CONFIG_PATH, configFileFromArgs, planTracing, readTracingSettings, stderrWarn, startTracing } from './tracing';

const argv = process.argv.slice(2);
/** Commands that collect nothing have nothing to trace. */
const collects = !argv.some((arg) => ['--help', '-h', '--version', '--check-config'].includes(arg));
const plan = collects ? planTracing(readTracingSettings(configFileFromArgs(argv) ?? DEFAULT_CONFIG_PATH)) : undefined;
const tracing =
  plan && startTracing(plan, (error) => process.stderr.write(`tracing disabled: the OpenTelemetry SDK did not start: ${error.message}\n`));

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { main } = require('./cli') as typeof import('./cli');

main(argv, tracing).then(
  async (code) => {
    if (code === undefined) return; // the daemon runs on; it flushes the traces when it stops
    if (!tracing) {
      process.exitCode = code;
      return;
    }
    if (!(await tracing.shutdown())) stderrWarn({}, 'spans not exported within 5 s; exiting without them');
    // --once's metrics may still be on their way into a pipe (written asynchronously): exit only once stdout has taken them.
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    // An export still waiting for a dead OTLP endpoint would hold the process until its own timeout.
    process.exit(code);
  },
  async (error: unknown) => {
    // A JSON line like every other log line (stderr with --once, where stdout carries the metrics).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createLogger } = require('./util/logger') as typeof import('./util/logger');
    const stack = error instanceof Error ? error.stack : undefined;
    createLogger('info', argv.includes('--once') ? 2 : 1).fatal({ err: error, stack }, 'fatal error');
    await tracing?.shutdown();
    process.exitCode = 2; // EXIT.nothingWritten of src/cli.ts
  },
);
