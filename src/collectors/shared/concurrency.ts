import pLimit from 'p-limit';

/** Runs `work` on each item, `limit` at once; the first failure starts no further item and awaits none running (the signal ends them). */
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
