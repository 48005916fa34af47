import type { TargetKind } from '../config/load';
import type { HistogramSample, Sample } from '../collectors/types';
import { compositeKey } from '../util/composite-key';

/** What a scrape needs to know about one collector of one target: its last good data and how its runs went. */
export interface CollectorRecord {
  readonly target: string;
  readonly kind: TargetKind;
  readonly collector: string;
  readonly scheduleIntervalSeconds: number;
  /** series of the last successful run */
  readonly samples: readonly Sample[];
  readonly histograms: readonly HistogramSample[];
  /** end of the last successful run (ms since epoch); undefined before the first success */
  readonly lastSuccessAt?: number;
  /** end of the last run, successful or not */
  readonly lastRunEndAt?: number;
  readonly lastRunSucceeded?: boolean;
  readonly lastDurationSeconds?: number;
  /** the last failure made the source unreachable (network, timeout, login, 5xx) */
  readonly lastRunUnreachable?: boolean;
  readonly lastError?: string;
  readonly runs: number;
  readonly failures: number;
  readonly skippedRuns: number;
  /** listing items skipped for failing their checks, by reason, over every run */
  readonly skippedItems: Readonly<Record<string, number>>;
}

export type RunReport =
  | { ok: true; durationSeconds: number; endedAt: number; samples: readonly Sample[]; histograms: readonly HistogramSample[] }
  | { ok: false; durationSeconds: number; endedAt: number; error: string; unreachable: boolean };

const keyOf = (target: string, collector: string): string => compositeKey([target, collector]);

/**
 * The latest result of every collector. Each update replaces one immutable
 * record in one synchronous step, so a scrape (which reads synchronously) sees
 * either the whole previous collection or the whole new one, never half.
 */
export class SnapshotStore {
  private records = new Map<string, CollectorRecord>();

  register(target: string, kind: TargetKind, collector: string, scheduleIntervalSeconds: number): void {
    const key = keyOf(target, collector);
    const existing = this.records.get(key);
    this.records.set(key, {
      ...(existing ?? { samples: [], histograms: [], runs: 0, failures: 0, skippedRuns: 0, skippedItems: {} }),
      target,
      kind,
      collector,
      scheduleIntervalSeconds,
    });
  }

  runStarted(target: string, collector: string): void {
    this.update(target, collector, (record) => ({ ...record, runs: record.runs + 1 }));
  }

  runSkipped(target: string, collector: string): void {
    this.update(target, collector, (record) => ({ ...record, skippedRuns: record.skippedRuns + 1 }));
  }

  /** Adds the items a run skipped, by reason; nothing for a collector no longer registered (its target was removed meanwhile). */
  itemsSkipped(target: string, collector: string, byReason: ReadonlyMap<string, number>): void {
    if (byReason.size === 0 || !this.records.has(keyOf(target, collector))) return;
    this.update(target, collector, (record) => {
      const skippedItems = { ...record.skippedItems };
      for (const [reason, count] of byReason) skippedItems[reason] = (skippedItems[reason] ?? 0) + count;
      return { ...record, skippedItems };
    });
  }

  runFinished(target: string, collector: string, report: RunReport): void {
    this.update(target, collector, (record) =>
      report.ok
        ? {
            ...record,
            samples: report.samples,
            histograms: report.histograms,
            lastSuccessAt: report.endedAt,
            lastRunEndAt: report.endedAt,
            lastRunSucceeded: true,
            lastDurationSeconds: report.durationSeconds,
            lastRunUnreachable: false,
            lastError: undefined,
          }
        : {
            ...record,
            lastRunEndAt: report.endedAt,
            lastRunSucceeded: false,
            lastDurationSeconds: report.durationSeconds,
            lastRunUnreachable: report.unreachable,
            lastError: report.error,
            failures: record.failures + 1,
          },
    );
  }

  /** Forgets a target (removed by a reload). */
  removeTarget(target: string): void {
    for (const [key, record] of this.records) if (record.target === target) this.records.delete(key);
  }

  /** Forgets one collector of a target (disabled by a reload). */
  remove(target: string, collector: string): void {
    this.records.delete(keyOf(target, collector));
  }

  get(target: string, collector: string): CollectorRecord | undefined {
    return this.records.get(keyOf(target, collector));
  }

  /** All records, in registration order. The array is a copy: safe to iterate while collections finish. */
  all(): CollectorRecord[] {
    return [...this.records.values()];
  }

  private update(target: string, collector: string, change: (record: CollectorRecord) => CollectorRecord): void {
    const key = keyOf(target, collector);
    const record = this.records.get(key);
    if (!record) throw new Error(`collector ${collector} of target ${target} is not registered`);
    this.records.set(key, change(record));
  }
}
