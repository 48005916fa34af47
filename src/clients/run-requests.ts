/**
 * What one collector run's API reading amounts to: each request (once, however often retried), each answer, and each listing item
 * skipped for failing its checks, added to the run it is part of, so no collector counts them by hand. The job reports them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ProblemKind } from '../util/validation';
import type { SingleFlight } from '../util/single-flight';

/** A listing item left out for failing its checks: what names it, never the item itself. */
export interface SkippedItem {
  endpoint: string;
  /** the item's id when it has one (bounded), else undefined */
  id: string | undefined;
  /** the item's first problems, e.g. "content[50].size: expected number, got string" (bounded) */
  problem: string;
  reason: ProblemKind;
}

export interface RunCount {
  requests: number;
  /** attempts the source answered in full (a status and the whole body, whatever the status) */
  answers: number;
  /** waits on requests another run sent and this one needs (a shared login, a storage discovery): no request of its own */
  sharedWaits?: number;
  skipped: SkippedItem[];
}

const currentRun = new AsyncLocalStorage<RunCount>();

/** Runs `work` with `count` (a fresh one per run) that every request it sends and every item it skips adds to. */
export function countingRequests<T>(count: RunCount, work: () => T): T {
  return currentRun.run(count, work);
}

/** Adds one request to the run it is part of; a request outside a run (login at start, logout at stop) counts nowhere. */
export function countRequest(): void {
  const count = currentRun.getStore();
  if (count) count.requests += 1;
}

/** Adds an answered attempt to the run it is part of: a run that ends on its time limit without one met a source that hangs. */
export function countAnswer(): void {
  const count = currentRun.getStore();
  if (count) count.answers += 1;
}

/**
 * Counts a wait on requests another run sent (a shared login, a storage discovery), answered when that work is: a run its limit ends
 * while it waits on a source that hangs met that source, whichever run happened to start the work.
 */
async function waitingOnShared<T>(work: Promise<T>): Promise<T> {
  const count = currentRun.getStore();
  if (count) count.sharedWaits = (count.sharedWaits ?? 0) + 1;
  const value = await work;
  countAnswer();
  return value;
}

/** `flight`'s result for this run's wait: work another run (or request) already started counts as a wait on it (waitingOnShared). */
export function sharedFlight<T>(flight: SingleFlight<T>, signal: AbortSignal | undefined, abortError: () => Error): Promise<T> {
  const joining = flight.busy;
  const work = flight.run(signal, abortError);
  return joining ? waitingOnShared(work) : work;
}

/** Adds a skipped item to the run it is part of (outside a run it is left out all the same). */
export function countSkippedItem(item: SkippedItem): void {
  currentRun.getStore()?.skipped.push(item);
}
