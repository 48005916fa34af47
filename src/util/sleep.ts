import { setTimeout } from 'node:timers/promises';

/** A timer that ends early, rejecting with the signal's reason, when the signal aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await setTimeout(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}
