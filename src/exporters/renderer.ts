/** /metrics and /probe as gzip members: a scrape only slices results compressed as runs ended (prepared.ts), and never waits for a run. */
import { setImmediate } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { familyHeader } from './format';
import { familyMember, gzipMember, prepareResult } from './prepared';
import type { SelfMetrics } from './self-metrics';
import { METRIC_FAMILIES } from '../metrics/catalog';
import type { Sample } from '../collectors/types';
import type { CollectorRecord, ReadyResult, SnapshotStore } from '../snapshot/store';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Each family's header as a gzip member, compressed once. */
const HEADERS = new Map(METRIC_FAMILIES.map((family) => [family.name, gzipMember(Buffer.from(familyHeader(family)))]));

/**
 * The last moment (ms) a record's last good data is served: staleAfter past its last success, plus one schedule interval when its last
 * run succeeded (or ended with the collection thread); otherwise a collector succeeding on a schedule of staleAfter or longer loses its
 * series whenever a run ends late. The longer of the interval then and now: a reload may have changed the schedule since.
 */
function servedUntil(record: CollectorRecord, staleAfterMs: number): number {
  if (record.lastSuccessAt === undefined) return -Infinity;
  const intervalSeconds = Math.max(record.scheduleIntervalSeconds, record.lastSuccessIntervalSeconds ?? 0);
  const untilNextRun = record.lastRunSucceeded || record.lastRunLost ? intervalSeconds * 1000 : 0;
  return record.lastSuccessAt + untilNextRun + staleAfterMs;
}

/** The exporter's view of each collector and target, computed at scrape time from the records. */
function statusSamples(records: readonly CollectorRecord[]): Sample[] {
  const samples: Sample[] = [];
  const reach = new Map<string, { kind: CollectorRecord['kind']; reachedAt: number; unreachableSince: number }>();
  for (const record of records) {
    const labels = { target: record.target, collector: record.collector };
    samples.push({ name: 'dataprotect_collector_schedule_interval_seconds', labels, value: record.scheduleIntervalSeconds });
    samples.push({ name: 'dataprotect_collector_runs_total', labels, value: record.runs });
    samples.push({ name: 'dataprotect_collector_failures_total', labels, value: record.failures });
    samples.push({ name: 'dataprotect_collector_skipped_runs_total', labels, value: record.skippedRuns });
    for (const [reason, value] of Object.entries(record.skippedItems)) {
      samples.push({ name: 'dataprotect_collector_skipped_items_total', labels: { ...labels, reason }, value });
    }
    if (record.lastRunEndAt === undefined) continue;
    samples.push({ name: 'dataprotect_collector_success', labels, value: record.lastRunSucceeded ? 1 : 0 });
    samples.push({ name: 'dataprotect_collector_duration_seconds', labels, value: record.lastDurationSeconds ?? 0 });
    if (record.lastSuccessAt !== undefined) {
      samples.push({ name: 'dataprotect_collector_last_success_timestamp_seconds', labels, value: record.lastSuccessAt / 1000 });
    }
    // A run the collection thread ended says nothing of the source: the run before it does.
    const endedOnSource = record.lastRunLost ? record.lastRunEndBeforeLoss : record.lastRunEndAt;
    if (record.unreachableSince === undefined && endedOnSource === undefined) continue;
    const target = reach.get(record.target) ?? { kind: record.kind, reachedAt: -Infinity, unreachableSince: Infinity };
    if (record.unreachableSince === undefined) target.reachedAt = Math.max(target.reachedAt, endedOnSource as number);
    else target.unreachableSince = Math.min(target.unreachableSince, record.unreachableSince);
    reach.set(record.target, target);
  }
  // A target is down once a run could not reach its API and none has since: a run that failed on bad data still proves the source
  // answered, and one endpoint failing while the others answer leaves it up, whichever run ended last.
  for (const [target, { kind, reachedAt, unreachableSince }] of reach) {
    const up = reachedAt > unreachableSince || unreachableSince === Infinity;
    samples.push({ name: 'dataprotect_up', labels: { target, kind }, value: up ? 1 : 0 });
  }
  return samples;
}

/** Every catalog family among `results`, in catalog order: its header, then each result's member of it; together, the gzip of the text. */
function familyChunks(results: readonly ReadyResult[]): Buffer[] {
  const out: Buffer[] = [];
  for (const [family, header] of HEADERS) {
    const parts = results.map((result) => familyMember(result, family)).filter((member) => member !== undefined);
    if (parts.length > 0) out.push(header, ...parts);
  }
  return out;
}

/** The records' status series and the results still fresh, as familyChunks. */
export function renderRecordChunks(records: readonly CollectorRecord[], options: { now: number; staleAfterMs: number }): Buffer[] {
  const fresh = records.filter((record) => record.result !== undefined && options.now <= servedUntil(record, options.staleAfterMs));
  const status = prepareResult({ samples: statusSamples(records) });
  return familyChunks([status, ...fresh.map((record) => record.result as ReadyResult)]);
}

/** Renders /metrics and /probe from one synchronous, consistent read of the store; only status and self-metric series are formatted. */
export class MetricsRenderer {
  constructor(
    private readonly store: () => SnapshotStore,
    private readonly self: SelfMetrics,
    private readonly staleAfterMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Everything as text, or one target's series when `target` is given (--once, tests; the endpoints send renderChunks). */
  async render(target?: string): Promise<string> {
    return gunzipSync(Buffer.concat(await this.renderChunks(target))).toString('utf8');
  }

  /** render() as gzip members whose concatenation is the gzip of its text, in three parts each after timers and I/O have run (an immediate
   * queued from the request's I/O callback runs before them), so that these wait one part at most. Self-metrics first: a scrape may show
   * the first round incomplete beside its results, never complete without them. */
  async renderChunks(target?: string): Promise<Buffer[]> {
    await setImmediate();
    const self = familyChunks([await this.self.prepared(target)]);
    await setImmediate();
    const all = this.store().all();
    const records = target === undefined ? all : all.filter((record) => record.target === target);
    const snapshot = renderRecordChunks(records, { now: this.now(), staleAfterMs: this.staleAfterMs() });
    if (target !== undefined) return [...snapshot, ...self];
    await setImmediate();
    return [...snapshot, ...self, gzipMember(Buffer.from(await this.self.processRegistry.metrics()))];
  }
}
