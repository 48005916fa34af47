import { parseArgs } from 'node:util';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { ConfigError, loadConfigFile, type ExporterConfig } from './config/load';
import { ConfigReloader } from './reloader';
import { readTlsPair } from './config/tls-pair';
import { DEFAULT_CONFIG_PATH, type Tracing } from './tracing';
import { KNOWN_COLLECTORS } from './collectors/names';
import { createLogger, type Logger } from './util/logger';
import { Exporter } from './exporter';
import { StopDeadline, STOP_DEADLINE_MS } from './stop-deadline';
import { VERSION } from './version';
import { withoutUserInfo } from './util/secret';

const HELP = `dataprotect-exporter ${VERSION}: Prometheus exporter for a data-protection estate

Usage: dataprotect-exporter [options]

  --config FILE     configuration file (default ${DEFAULT_CONFIG_PATH})
  --check-config    validate the configuration and exit (0 when valid)
  --once            run every enabled collector once, print the metrics, exit
  --output FILE     with --once: write the metrics to FILE atomically instead of
                    stdout (for node_exporter's textfile collector)
  --version         print the version
  --help            this text

Exit codes (--once, --check-config):
  0   every collector succeeded (the configuration is valid)
  1   a collector failed; the metrics were still written, and
      dataprotect_collector_success says which
  2   nothing was written: wrong command line, invalid configuration,
      output file not writable, or a fatal error

Signals: SIGTERM/SIGINT stop within ${STOP_DEADLINE_MS / 1000} s (running collections are aborted;
exit code 1 when the deadline cut something short; a second signal exits at once);
SIGHUP reloads the configuration file, and so does a change of the file
(a bad file is rejected, the old configuration keeps running).

Traces: OpenTelemetry over OTLP/HTTP when tracing.enabled is true in the file
or OTEL_TRACES_EXPORTER=otlp / OTEL_EXPORTER_OTLP_ENDPOINT in the environment.
`;

/** The exit codes --help documents: a textfile unit treats 0 and 1 as "the file was written". */
const EXIT = { success: 0, collectorFailed: 1, nothingWritten: 2 } as const;

const OPTIONS = {
  config: { type: 'string', default: DEFAULT_CONFIG_PATH },
  'check-config': { type: 'boolean', default: false },
  once: { type: 'boolean', default: false },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', default: false },
} as const;

type CliOptions = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

function usageError(message: string): number {
  process.stderr.write(`${message}\n\n${HELP}`);
  return EXIT.nothingWritten;
}

/** Reads and validates the file, web.tls's certificate and key included (at start, --check-config and reload). */
function readConfig(file: string): ExporterConfig {
  const config = loadConfigFile(file, { knownCollectors: KNOWN_COLLECTORS });
  if (config.web.tls) readTlsPair(config.web.tls);
  return config;
}

/** Writes through a temporary file and a rename, so a reader never sees a half-written file. */
function writeAtomically(file: string, content: string): void {
  // Same directory (a rename is atomic only within one file system); not *.prom, so the textfile collector skips it.
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

async function runOnce(config: ExporterConfig, options: CliOptions, logger: Logger): Promise<number> {
  const exporter = new Exporter(config, logger, { processMetrics: false, inThread: true });
  try {
    const results = await exporter.runtime.runOnce();
    const text = await exporter.renderer.render();
    if (options.output) {
      try {
        writeAtomically(options.output, text);
      } catch (error) {
        logger.error({ file: options.output, err: error }, 'textfile not written');
        return EXIT.nothingWritten;
      }
    } else process.stdout.write(text);
    return results.every((result) => result === 'success') ? EXIT.success : EXIT.collectorFailed;
  } finally {
    // What the stop cut short is only logged: the exit codes say what was written. src/main.ts sends the spans.
    const deadline = new StopDeadline();
    await exporter.stop(deadline);
    if (deadline.cutShort.length > 0) logger.warn({ cutShort: deadline.cutShort }, 'stop cut short');
  }
}

async function runDaemon(config: ExporterConfig, options: CliOptions, logger: Logger, tracing: Tracing | undefined): Promise<void> {
  const exporter = new Exporter(config, logger, { tracing });
  const reloader = new ConfigReloader({
    file: options.config,
    read: readConfig,
    apply: (next) => exporter.applyConfig(next),
    onOutcome: (outcome) => exporter.selfMetrics.recordConfigLoad(outcome === 'applied', new Date()),
    logger,
  });
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    const deadline = new StopDeadline();
    logger.info({ signal, deadlineSeconds: deadline.totalMs / 1000 }, 'shutting down');
    const exit = (cutShort: string[]): never => {
      if (cutShort.length === 0) process.exit(0);
      logger.error({ cutShort, deadlineSeconds: deadline.totalMs / 1000 }, 'stop cut short');
      process.exit(1);
    };
    // Every step is bounded by the deadline; this is for whatever was not foreseen.
    setTimeout(() => exit([...deadline.cutShort, 'the stop']), deadline.totalMs).unref();
    // A reload going on ends on its own: it never waits on a source, and starts nothing once stopped.
    void reloader.close();
    exporter.stop(deadline).then(
      () => exit(deadline.cutShort),
      (error: Error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Before the start: a stop asked for while the server starts listening is not lost.
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => shutdown(signal));
  await exporter.start();
  reloader.watch();
  process.on('SIGHUP', () => void reloader.reload('SIGHUP'));
}

/** The command line, with the tracing src/main.ts started; returns the process exit code (undefined while the daemon runs). */
export async function main(argv: string[], tracing?: Tracing): Promise<number | undefined> {
  let options: CliOptions;
  try {
    options = parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (options.help || options.version) {
    process.stdout.write(options.help ? HELP : `${VERSION}\n`);
    return 0;
  }
  if (options.output && !options.once) return usageError('--output only applies with --once');
  let config: ExporterConfig;
  try {
    config = readConfig(options.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${options.config}: invalid configuration\n${error.problems.join('\n')}\n`);
    return EXIT.nothingWritten;
  }
  if (options['check-config']) {
    process.stdout.write(`${options.config}: configuration is valid (${config.targets.length} targets)\n`);
    return 0;
  }
  // In --once mode stdout carries the metrics, so logs go to stderr.
  const logger = createLogger(config.logLevel, options.once ? 2 : 1);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  if (tracing) {
    const { plan } = tracing;
    const endpoint = plan.endpoint ? withoutUserInfo(plan.endpoint) : 'from OTEL_EXPORTER_OTLP_*';
    logger.info({ reason: plan.reason, endpoint, serviceName: plan.serviceName }, 'tracing enabled');
    tracing.reportTo((fields, message) => logger.warn(fields, message));
  }
  if (options.once) return runOnce(config, options, logger);
  await runDaemon(config, options, logger, tracing);
  return undefined;
}
