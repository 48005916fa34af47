/**
 * OpenTelemetry traces: the OTLP/HTTP exporter of the NodeSDK, started by
 * src/main.ts before the rest of the exporter loads.
 *
 * Off unless the config file sets `tracing.enabled: true` or the environment
 * asks for traces (OTEL_TRACES_EXPORTER=otlp, OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). When off, the SDK is never loaded: the
 * spans of the collectors and the HTTP core then go to the API's no-op tracer.
 *
 * This module may only import node built-ins, `yaml` (through config/yaml-file)
 * and types: it runs before tracing starts.
 */
import { parseArgs } from 'node:util';
import { readYamlFile, substituteEnv } from './config/yaml-file';
import { settlesWithin } from './util/settles-within';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { ExporterConfig } from './config/schema';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** What the SDK is started with. */
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
  /**
   * Exports the spans still buffered and stops, waiting at most `timeoutMs`
   * (5 s by default); never throws; false when it gave up waiting. Only the
   * first call's limit counts: later calls get the same outcome.
   */
  shutdown(timeoutMs?: number): Promise<boolean>;
  /** where failed span exports are reported from now on (until then: JSON lines on stderr) */
  reportTo(log: ExportFailureLog): void;
}

/** A warn-level log call, as pino's `logger.warn.bind(logger)`. */
export type ExportFailureLog = (fields: Record<string, unknown>, message: string) => void;

/** One line per minute at most: a dead collector fails every batch, every few seconds. */
const EXPORT_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * The OTLP exporter fails silently: a wrong endpoint looked like "no
 * traces". This wrapper reports failed exports, the first at once, then one
 * line a minute with the number of batches and spans lost meanwhile.
 */
export class ReportingSpanExporter implements SpanExporter {
  private lastLogAt: number | undefined;
  private failedBatches = 0;
  private failedSpans = 0;

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
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  private failed(spans: number, error: Error | undefined): void {
    this.failedBatches += 1;
    this.failedSpans += spans;
    const now = this.now();
    if (this.lastLogAt !== undefined && now - this.lastLogAt < EXPORT_FAILURE_LOG_INTERVAL_MS) return;
    this.lastLogAt = now;
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
  const line = { level: 'warn', time: new Date().toISOString(), service: DEFAULT_SERVICE_NAME, ...fields, msg: message };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

export const DEFAULT_SERVICE_NAME = 'dataprotect-exporter';
/** Defined here rather than in cli.ts: main.ts reads the file before loading the CLI. */
export const DEFAULT_CONFIG_PATH = '/etc/dataprotect-exporter/config.yaml';
/** Longest wait for the last spans at exit: a dead collector must not hold the process. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * The `tracing:` section of a config file, read without validation. Any
 * problem (missing file, bad YAML, wrong types) gives {}: tracing then follows
 * the environment only, and the CLI's full validation reports the problem.
 */
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

const isTrue = (value: string | undefined): boolean => value?.trim().toLowerCase() === 'true';
const listOf = (value: string | undefined): string[] =>
  (value ?? '').split(',').map((item) => item.trim().toLowerCase()).filter(Boolean);

/**
 * Whether and how to trace. The config file's values win over the OTEL_*
 * variables, which fill in what the file leaves unset. OTEL_SDK_DISABLED=true
 * and OTEL_TRACES_EXPORTER=none turn tracing off whatever the file says. An
 * explicit `enabled: false` wins over OTEL_* variables that ask for traces:
 * `warn` says so, as the operator who set them expects traces.
 */
export function planTracing(
  file: ExporterConfig['tracing'],
  env: NodeJS.ProcessEnv = process.env,
  warn: ExportFailureLog = stderrWarn,
): TracingPlan | undefined {
  const exporters = listOf(env.OTEL_TRACES_EXPORTER);
  if (isTrue(env.OTEL_SDK_DISABLED) || exporters.includes('none')) return undefined;
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

/**
 * Starts the NodeSDK with an OTLP/HTTP trace exporter (batching, sampler and
 * headers from the OTEL_* variables) and an AsyncLocalStorage context manager.
 * Traces only: the SDK's default metric and log exporters are switched off
 * (the metrics are Prometheus's business). Undefined when the SDK does not
 * start: traces are a diagnostic and must not keep the exporter from running.
 */
export function startTracing(plan: TracingPlan, onFailure: (error: Error) => void = () => undefined): Tracing | undefined {
  let sdk: NodeSDK;
  let exporter: ReportingSpanExporter;
  try {
    // Loaded here, not at the top: when tracing is off the SDK costs nothing.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    /* eslint-enable @typescript-eslint/no-require-imports */
    exporter = new ReportingSpanExporter(new OTLPTraceExporter(plan.endpoint ? { url: plan.endpoint } : {}));
    const options = { traceExporter: exporter, instrumentations: [], metricReaders: [], logRecordProcessors: [] };
    sdk = new Sdk({ ...options, ...(plan.serviceName ? { serviceName: plan.serviceName } : {}) });
    sdk.start();
  } catch (error) {
    onFailure(error as Error);
    return undefined;
  }
  let stopping: Promise<boolean> | undefined;
  return {
    plan,
    shutdown: (timeoutMs = SHUTDOWN_TIMEOUT_MS) =>
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
