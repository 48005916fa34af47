/** The only module importing prom-client, which keeps the self-metrics' values; format.ts writes their text, as every catalog family's. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestObserver } from '../clients/http';
import { metricFamily, type MetricName } from '../metrics/catalog';
import type { ReadyResult } from '../snapshot/store';
import { formatSample } from './format';
import { ResultWriter } from './prepared';
import { VERSION } from '../version';

export class SelfMetrics implements RequestObserver {
  private readonly registry = new Registry();
  /** Node.js process metrics (process_*, nodejs_*), for /metrics only: prom-client's own families, as it renders them. */
  readonly processRegistry = new Registry();
  private readonly apiRequests = new Counter(this.declare('dataprotect_api_requests_total'));
  private readonly apiDuration = new Histogram({
    ...this.declare('dataprotect_api_request_duration_seconds'),
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  });
  private readonly buildInfo = new Gauge(this.declare('dataprotect_exporter_build_info'));
  private readonly otlpDropped = new Counter(this.declare('dataprotect_otlp_dropped_total'));
  private readonly firstRoundComplete = new Gauge(this.declare('dataprotect_exporter_first_round_complete'));
  private readonly collectionRestarts = new Counter(this.declare('dataprotect_exporter_collection_restarts_total'));
  private readonly reloadSuccessful = new Gauge(this.declare('dataprotect_config_last_reload_successful'));
  private readonly reloadSuccessTime = new Gauge(this.declare('dataprotect_config_last_reload_success_timestamp_seconds'));
  /** the targets whose requests are counted (countTargets); all until it is first called */
  private targets: ReadonlySet<string> | undefined;

  constructor(options: { processMetrics?: boolean } = {}) {
    this.buildInfo.set({ version: VERSION, nodejs_version: process.version }, 1);
    // From 0, so that the first restart is an increase too.
    for (const reason of ['out_of_memory', 'crash', 'exit']) this.collectionRestarts.inc({ reason }, 0);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.processRegistry });
  }

  onRequest(event: { target: string; endpoint: string; code: string; durationSeconds: number }): void {
    // a removed target's logout ends after its series were forgotten
    if (this.targets && !this.targets.has(event.target)) return;
    this.apiRequests.inc({ target: event.target, endpoint: event.endpoint, code: event.code });
    this.apiDuration.observe({ target: event.target, endpoint: event.endpoint }, event.durationSeconds);
  }

  /** Counts the estate's events lost on their way to the OTLP endpoint (src/otlp). */
  onOtlpDropped(signal: 'traces' | 'logs', count: number): void {
    this.otlpDropped.inc({ signal }, count);
  }

  onCollectionRestart(reason: string): void {
    this.collectionRestarts.inc({ reason });
  }

  /** Whether every collector has finished a first run (the runtime's firstRoundComplete). */
  recordFirstRound(complete: boolean): void {
    this.firstRoundComplete.set(complete ? 1 : 0);
  }

  /** A configuration load's outcome, as Prometheus publishes it: only these series show that a rejected reload left the old one running. */
  recordConfigLoad(applied: boolean, at: Date): void {
    this.reloadSuccessful.set(applied ? 1 : 0);
    if (applied) this.reloadSuccessTime.set(at.getTime() / 1000);
  }

  /** The self-metric series, prepared as a collector's result is; with `target`, only that target's (exporter-wide series have none). */
  async prepared(target?: string): Promise<ReadyResult> {
    const writer = new ResultWriter();
    for (const metric of await this.registry.getMetricsAsJSON()) {
      for (const value of metric.values) {
        if (target !== undefined && value.labels.target !== target) continue;
        const name = (value as { metricName?: string }).metricName ?? metric.name;
        writer.line(metric.name, formatSample(name, value.labels, value.value));
      }
    }
    return writer.finish();
  }

  /** The catalog's name, help and labels of a self-metric, registered in the registry of prepared(). */
  private declare(name: MetricName) {
    const family = metricFamily(name);
    return { name: family.name, help: family.help, labelNames: [...family.labels], registers: [this.registry] };
  }

  /** Counts the requests of these targets only, and forgets the series of any other: a removed target's would be served forever. */
  async countTargets(names: readonly string[]): Promise<void> {
    const targets = (this.targets = new Set(names));
    for (const metric of [this.apiRequests, this.apiDuration]) {
      for (const value of (await metric.get()).values) {
        if (targets.has(String(value.labels.target))) continue;
        // A histogram's buckets come as values of their own; removing their series again does nothing.
        const { le: _le, ...labels } = value.labels as Record<string, string>;
        metric.remove(labels);
      }
    }
  }
}
