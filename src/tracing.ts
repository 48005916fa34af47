/** OpenTelemetry traces, started by src/main.ts before what they instrument loads: so this module loads no package but `yaml`. */
import { formatWithOptions, parseArgs } from 'node:util';
import { readYamlFile, substituteEnv } from './config/yaml-file';
import { settlesWithin } from './util/settles-within';
import { FLUSH_MS } from './stop-deadline';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { ExporterConfig } from './config/schema';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';

export interface TracingPlan {
  /** traces URL given by the config file; undefined: the exporter reads OTEL_EXPORTER_OTLP_* */
  endpoint?: string;
  /** service.name to set; undefined: OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES decide */
  serviceName?: string;
  /** why tracing is on, for the start-up log line */
  reason: string;
}

export interface Tracing {
  plan: TracingPlan;
  /** Exports the buffered spans and stops within `timeoutMs`; never throws; false when it gave up. Later calls get the first's outcome. */
  shutdown(timeoutMs?: number): Promise<boolean>;
  /** where failed span exports are reported from now on (until then: JSON lines on stderr) */
  reportTo(log: ExportFailureLog): void;
}

/** A warn-level log call, as pino's `logger.warn.bind(logger)`. */
export type ExportFailureLog = (fields: Record<string, unknown>, message: string) => void;

/** One line per minute at most: a dead collector fails every batch, every few seconds. */
const EXPORT_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Reports failed exports, silent otherwise (a wrong endpoint would look like "no traces"): the first at once, then a line a minute with
 * what was lost since the last one, told at the first export a minute on (failed or not: the endpoint may have recovered) or at shutdown.
 */
export class ReportingSpanExporter implements SpanExporter {
  private lastLogAt: number | undefined;
  private failedBatches = 0;
  private failedSpans = 0;
  private lastError: Error | undefined;

  constructor(
    private readonly inner: SpanExporter,
    private log: ExportFailureLog = stderrWarn,
    private readonly now: () => number = Date.now,
  ) {}

  reportTo(log: ExportFailureLog): void {
    this.log = log;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      // ExportResultCode.SUCCESS is 0 (the enum is not imported: this module loads before the SDK)
      if (result.code !== 0) this.failed(spans.length, result.error);
      this.report(false);
      resultCallback(result);
    });
  }

  async shutdown(): Promise<void> {
    try {
      await this.inner.shutdown();
    } finally {
      this.report(true);
    }
  }

  private failed(spans: number, error: Error | undefined): void {
    this.failedBatches += 1;
    this.failedSpans += spans;
    this.lastError = error;
  }

  /** Tells what was lost since the last line, if any, when a minute has passed since it (or at once when `now`). */
  private report(now: boolean): void {
    if (this.failedBatches === 0) return;
    const at = this.now();
    if (!now && this.lastLogAt !== undefined && at - this.lastLogAt < EXPORT_FAILURE_LOG_INTERVAL_MS) return;
    this.lastLogAt = at;
    const error = this.lastError;
    this.log(
      { batches: this.failedBatches, spans: this.failedSpans, error: error ? `${error.name}: ${error.message}` : 'export failed' },
      'span export failed; traces are lost (at most one line a minute)',
    );
    this.failedBatches = 0;
    this.failedSpans = 0;
  }
}

/** Before the CLI's logger exists (or after it is gone): a JSON warn line on stderr like every other log line. */
export function stderrWarn(fields: Record<string, unknown>, message: string): void {
  stderrLine('warn', fields, message);
}

function stderrLine(level: string, fields: Record<string, unknown>, message: string): void {
  const line = { level, time: new Date().toISOString(), service: DEFAULT_SERVICE_NAME, ...fields, msg: message };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** The SDK's diagnostics (OTEL_LOG_LEVEL) as JSON lines on stderr; its own DiagConsoleLogger prints plain text, on stdout below warn. */
const jsonDiagLogger = Object.fromEntries(
  (['error', 'warn', 'info', 'debug', 'verbose'] as const).map((method) => [
    method,
    (message: string, ...args: unknown[]) => {
      const text = formatWithOptions({ breakLength: Infinity }, message, ...args);
      stderrLine(method === 'verbose' ? 'trace' : method, { component: 'opentelemetry' }, text);
    },
  ]),
) as Record<'error' | 'warn' | 'info' | 'debug' | 'verbose', (message: string, ...args: unknown[]) => void>;

export const DEFAULT_SERVICE_NAME = 'dataprotect-exporter';

/** Whatever OTEL_EXPORTER_OTLP_COMPRESSION says: the collection thread sends OTLP and makes no zlib stream (docs/performance.md). */
export const UNCOMPRESSED_OTLP = { compression: 'none' as CompressionAlgorithm };

/** Defined here rather than in cli.ts: main.ts reads the file before loading the CLI. */
export const DEFAULT_CONFIG_PATH = '/etc/dataprotect-exporter/config.yaml';

/** The file's `tracing:` section, unvalidated: any problem gives {}, so tracing follows the environment and the CLI reports the problem. */
export function readTracingSettings(file: string, env: NodeJS.ProcessEnv = process.env): ExporterConfig['tracing'] {
  const read = readYamlFile(file);
  const section = 'value' in read ? (read.value as { tracing?: unknown } | null)?.tracing : undefined;
  if (!section || typeof section !== 'object') return {};
  const raw = section as Record<string, unknown>;
  const text = (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    const unset: string[] = [];
    const substituted = substituteEnv(value, env, unset);
    return unset.length > 0 || substituted === '' ? undefined : substituted; // the CLI reports the unset variable
  };
  const enabled = typeof raw.enabled === 'boolean' ? raw.enabled : undefined;
  return { enabled, endpoint: text(raw.endpoint), serviceName: text(raw.serviceName) };
}

/**
 * The file's values win, the OTEL_* variables fill in the rest; OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn tracing off.
 * So does `enabled: false`, with a warning, as whoever set OTEL_* variables asking for traces expects them.
 */
export function planTracing(
  file: ExporterConfig['tracing'],
  env: NodeJS.ProcessEnv = process.env,
  warn: ExportFailureLog = stderrWarn,
): TracingPlan | undefined {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((item) => item.trim().toLowerCase());
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || exporters.includes('none')) return undefined;
  let fromEnv: string | undefined;
  if (exporters.includes('otlp')) fromEnv = 'OTEL_TRACES_EXPORTER=otlp';
  else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) fromEnv = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  else if (env.OTEL_EXPORTER_OTLP_ENDPOINT) fromEnv = 'OTEL_EXPORTER_OTLP_ENDPOINT';
  if (file.enabled === false) {
    if (fromEnv) warn({ ignored: fromEnv }, `tracing off: tracing.enabled is false in the configuration file, which wins over ${fromEnv}`);
    return undefined;
  }
  const reason = file.enabled === true ? 'tracing.enabled in the configuration file' : fromEnv;
  if (!reason) return undefined;
  const serviceNameFromEnv = Boolean(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const serviceName = file.serviceName ?? (serviceNameFromEnv ? undefined : DEFAULT_SERVICE_NAME);
  return { endpoint: file.endpoint, serviceName, reason };
}

/** Starts the NodeSDK, traces only (metrics are Prometheus's business); undefined when it fails: traces must not stop the exporter. */
export function startTracing(plan: TracingPlan, onFailure: (error: Error) => void = () => undefined): Tracing | undefined {
  let sdk: NodeSDK;
  let exporter: ReportingSpanExporter;
  try {
    // Loaded here, not at the top: when tracing is off the SDK costs nothing.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    const { diag, DiagLogLevel } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
    const { diagLogLevelFromString } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    /* eslint-enable @typescript-eslint/no-require-imports */
    // OTEL_LOG_LEVEL as usual, but in JSON lines: the SDK's constructor would install its console logger, so it does not see it.
    const diagLevel = process.env.OTEL_LOG_LEVEL;
    const logLevel = diagLevel ? (diagLogLevelFromString(diagLevel) ?? DiagLogLevel.INFO) : undefined;
    if (logLevel !== undefined) diag.setLogger(jsonDiagLogger, { logLevel, suppressOverrideMessage: true });
    delete process.env.OTEL_LOG_LEVEL;
    try {
      const otlp = new OTLPTraceExporter({ ...UNCOMPRESSED_OTLP, ...(plan.endpoint ? { url: plan.endpoint } : {}) });
      exporter = new ReportingSpanExporter(otlp);
      const options = { traceExporter: exporter, instrumentations: [], metricReaders: [], logRecordProcessors: [] };
      sdk = new Sdk({ ...options, ...(plan.serviceName ? { serviceName: plan.serviceName } : {}) });
    } finally {
      if (diagLevel !== undefined) process.env.OTEL_LOG_LEVEL = diagLevel;
    }
    sdk.start();
  } catch (error) {
    onFailure(error as Error);
    return undefined;
  }
  let stopping: Promise<boolean> | undefined;
  return {
    plan,
    shutdown: (timeoutMs = FLUSH_MS) =>
      // a failed export is reported by the exporter: only running out of time is false
      (stopping ??= settlesWithin(sdk.shutdown(), timeoutMs)),
    reportTo: (log) => exporter.reportTo(log),
  };
}

/** The config file named on a command line (`--config FILE` or `--config=FILE`), if any; the CLI judges the rest. */
export function configFileFromArgs(argv: readonly string[]): string | undefined {
  const { config } = parseArgs({ args: [...argv], options: { config: { type: 'string' } }, strict: false }).values;
  return typeof config === 'string' ? config : undefined;
}
