/**
 * Counts the API requests one collector run sends, whichever collector code
 * or shared helper sends them: the HTTP client adds each request (once,
 * however often it is retried) to the count of the run it is part of, so no
 * collector counts pages by hand.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestCount {
  requests: number;
}

const currentRun = new AsyncLocalStorage<RequestCount>();

/** Runs `work` with a fresh count that every request it sends adds to. */
export function countingRequests<T>(work: () => T): { count: RequestCount; result: T } {
  const count: RequestCount = { requests: 0 };
  return { count, result: currentRun.run(count, work) };
}

/** Adds one request to the run it is part of; a request outside a run (login at start, logout at stop) counts nowhere. */
export function countRequest(): void {
  const count = currentRun.getStore();
  if (count) count.requests += 1;
}
