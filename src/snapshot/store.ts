import type { TargetKind } from '../config/load';
import { compositeKey } from '../util/composite-key';

/** A run's series as served (src/exporters/prepared.ts): a gzip member per family in `bytes`; `families` holds [name, start, end]. */
export interface ReadyResult {
  readonly bytes: Uint8Array;
  readonly families: ReadonlyArray<readonly [string, number, number]>;
  /** series in it (the landing page says how many) */
  readonly series: number;
}

/** What a scrape needs to know about one collector of one target: its last good data and how its runs went. */
export interface CollectorRecord {
  readonly target: string;
  readonly kind: TargetKind;
  readonly collector: string;
  readonly scheduleIntervalSeconds: number;
  readonly result?: ReadyResult;
  /** end of the last successful run (ms since epoch); undefined before the first success */
  readonly lastSuccessAt?: number;
  /** the schedule interval when it ended: a reload that shortens the schedule does not shorten how long that success is served */
  readonly lastSuccessIntervalSeconds?: number;
  /** end of the last run, successful or not */
  readonly lastRunEndAt?: number;
  readonly lastRunSucceeded?: boolean;
  /** the last run ended with the collection thread, not on its source: what its last success gave stands until a run ends */
  readonly lastRunLost?: boolean;
  /** with lastRunLost: the end of the last run that ended on its source (undefined: none), what says whether it was reached */
  readonly lastRunEndBeforeLoss?: number;
  readonly lastDurationSeconds?: number;
  /** a run started and has not ended: when the collection thread dies, that run failed */
  readonly runGoingOn?: boolean;
  /** end of the first of the runs up to the last that could not reach the source (network, timeout, login, 5xx); undefined: it did */
  readonly unreachableSince?: number;
  readonly lastError?: string;
  readonly runs: number;
  readonly failures: number;
  readonly skippedRuns: number;
  /** listing items skipped for failing their checks, by reason, over every run */
  readonly skippedItems: Readonly<Record<string, number>>;
}

export type RunReport =
  | { ok: true; durationSeconds: number; endedAt: number; result: ReadyResult }
  | { ok: false; durationSeconds: number; endedAt: number; error: string; unreachable: boolean };

const keyOf = (target: string, collector: string): string => compositeKey([target, collector]);

/** Told of every record that changes (`resultChanged`: it holds a new result) and every key removed. */
export interface StoreListener {
  changed(record: CollectorRecord, resultChanged: boolean): void;
  removed(target: string, collector: string): void;
}

/**
 * The latest result of every collector. An update replaces one immutable record in one synchronous step, so a scrape (synchronous too)
 * sees the whole previous collection or the whole new one. The collection thread's store tells a listener each update; host.ts mirrors it.
 */
export class SnapshotStore {
  private records = new Map<string, CollectorRecord>();
  /** what the collection threads that ended counted, by key: a restarted thread counts from 0 and its counters go on from these */
  private readonly counted = new Map<string, Counts>();

  constructor(private readonly listener?: StoreListener) {}

  register(target: string, kind: TargetKind, collector: string, scheduleIntervalSeconds: number): void {
    const key = keyOf(target, collector);
    const record: CollectorRecord = {
      ...(this.records.get(key) ?? { runs: 0, failures: 0, skippedRuns: 0, skippedItems: {} }),
      target,
      kind,
      collector,
      scheduleIntervalSeconds,
    };
    this.records.set(key, record);
    this.listener?.changed(record, false);
  }

  runStarted(target: string, collector: string): void {
    this.update(target, collector, false, (record) => ({ ...record, runs: record.runs + 1, runGoingOn: true }));
  }

  runSkipped(target: string, collector: string): void {
    this.update(target, collector, false, (record) => ({ ...record, skippedRuns: record.skippedRuns + 1 }));
  }

  /** Adds the items a run skipped, by reason; nothing for a collector no longer registered (its target was removed meanwhile). */
  itemsSkipped(target: string, collector: string, byReason: ReadonlyMap<string, number>): void {
    if (byReason.size === 0 || !this.records.has(keyOf(target, collector))) return;
    this.update(target, collector, false, (record) => {
      const skippedItems = { ...record.skippedItems };
      for (const [reason, count] of byReason) skippedItems[reason] = (skippedItems[reason] ?? 0) + count;
      return { ...record, skippedItems };
    });
  }

  runFinished(target: string, collector: string, report: RunReport): void {
    const { endedAt: lastRunEndAt, ok: lastRunSucceeded, durationSeconds: lastDurationSeconds } = report;
    const notLost = { lastRunLost: undefined, lastRunEndBeforeLoss: undefined, runGoingOn: false };
    const ended = { lastRunEndAt, lastRunSucceeded, lastDurationSeconds, ...notLost };
    this.update(target, collector, report.ok, (record) => {
      if (!report.ok) {
        const unreachableSince = report.unreachable ? (record.unreachableSince ?? report.endedAt) : undefined;
        return { ...record, ...ended, unreachableSince, lastError: report.error, failures: record.failures + 1 };
      }
      const { result, endedAt: lastSuccessAt } = report;
      const lastSuccessIntervalSeconds = record.scheduleIntervalSeconds;
      return { ...record, ...ended, result, lastSuccessAt, lastSuccessIntervalSeconds, unreachableSince: undefined, lastError: undefined };
    });
  }

  /** Forgets a target (removed by a reload). */
  removeTarget(target: string): void {
    for (const record of this.all()) if (record.target === target) this.remove(target, record.collector);
  }

  /** Forgets one collector of a target (disabled by a reload). */
  remove(target: string, collector: string): void {
    this.counted.delete(keyOf(target, collector));
    if (this.records.delete(keyOf(target, collector))) this.listener?.removed(target, collector);
  }

  /**
   * Takes a collection-side record (with its result only when new). After a restart, the last run and result stay until new ones
   * end, the last success until a new one, and the counters go on from the ended thread's.
   */
  mirror(record: CollectorRecord): void {
    const key = keyOf(record.target, record.collector);
    const existing = this.records.get(key);
    const counted = this.counted.get(key);
    const next = counted ? { ...record, ...countsAdded(counted, record) } : record;
    if (!existing) this.records.set(key, next);
    else if (record.lastRunEndAt === undefined) this.records.set(key, { ...next, ...lastRunOf(existing) });
    else if (next.lastSuccessAt !== undefined) this.records.set(key, { ...next, result: next.result ?? existing.result });
    else this.records.set(key, { ...next, ...lastSuccessOf(existing) });
  }

  /**
   * The collection side stopped: every collector's current run failed with `error`, which no source caused: a target that could not
   * be reached stays so, and the series keep what their last success gave them until a run ends.
   */
  collectionLost(error: string, at: number): void {
    for (const [key, record] of this.records) {
      // the run going on failed; a collector waiting for its next run failed none
      const { runs, failures: failed, skippedRuns, skippedItems, runGoingOn } = record;
      const failures = failed + (runGoingOn ? 1 : 0);
      this.counted.set(key, { runs, failures, skippedRuns, skippedItems });
      const lastRunEndBeforeLoss = record.lastRunLost ? record.lastRunEndBeforeLoss : record.lastRunEndAt;
      const lost = { lastRunEndAt: at, lastRunSucceeded: false, lastRunLost: true, lastRunEndBeforeLoss, lastError: error };
      this.records.set(key, { ...record, ...lost, failures, runGoingOn: false });
    }
  }

  get(target: string, collector: string): CollectorRecord | undefined {
    return this.records.get(keyOf(target, collector));
  }

  /** All records, in registration order. The array is a copy: safe to iterate while collections finish. */
  all(): CollectorRecord[] {
    return [...this.records.values()];
  }

  private update(target: string, collector: string, resultChanged: boolean, change: (record: CollectorRecord) => CollectorRecord): void {
    const key = keyOf(target, collector);
    const record = this.records.get(key);
    if (!record) throw new Error(`collector ${collector} of target ${target} is not registered`);
    const next = change(record);
    this.records.set(key, next);
    this.listener?.changed(next, resultChanged);
  }
}

/** What a record says about its last success (kept by mirror() while a restarted collection side has none). */
function lastSuccessOf({ result, lastSuccessAt, lastSuccessIntervalSeconds }: CollectorRecord): Partial<CollectorRecord> {
  return { result, lastSuccessAt, lastSuccessIntervalSeconds };
}

/** What a record says about the runs that ended (kept by mirror() while a restarted collection side has none). */
function lastRunOf(record: CollectorRecord): Partial<CollectorRecord> {
  const { lastRunEndAt, lastRunSucceeded, lastRunLost, lastRunEndBeforeLoss, lastDurationSeconds, unreachableSince, lastError } = record;
  const lost = { lastRunLost, lastRunEndBeforeLoss };
  return { ...lastSuccessOf(record), lastRunEndAt, lastRunSucceeded, ...lost, lastDurationSeconds, unreachableSince, lastError };
}

type Counts = Pick<CollectorRecord, 'runs' | 'failures' | 'skippedRuns' | 'skippedItems'>;

function countsAdded(a: Counts, b: Counts): Counts {
  const skippedItems = { ...a.skippedItems };
  for (const [reason, count] of Object.entries(b.skippedItems)) skippedItems[reason] = (skippedItems[reason] ?? 0) + count;
  return { runs: a.runs + b.runs, failures: a.failures + b.failures, skippedRuns: a.skippedRuns + b.skippedRuns, skippedItems };
}
