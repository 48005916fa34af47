import pLimit from 'p-limit';

/**
 * Runs `work` on every item, at most `limit` at once. The first failure ends
 * it: no further item starts, and the ones running are not awaited (their
 * requests end with the run's signal).
 */
export async function forEachConcurrent<T>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const running = pLimit(Math.max(1, limit));
  let failed = false;
  const stopOnFailure = async (item: T): Promise<void> => {
    // an item queued before the failure may still be started by the limiter
    if (failed) return;
    signal.throwIfAborted();
    try {
      await work(item);
    } catch (error) {
      failed = true;
      running.clearQueue();
      throw error;
    }
  };
  await Promise.all(items.map((item) => running(() => stopOnFailure(item))));
}
