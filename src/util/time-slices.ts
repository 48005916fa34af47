/**
 * Long synchronous loops on the event loop (building, checking or formatting
 * the 100,000+ series of a large estate) hand it over between slices, so that
 * a /metrics scrape waiting on a socket is answered in between instead of
 * after the whole loop.
 *
 * Slices are measured in wall time, not counted in items: a count sized on an
 * idle machine runs 5-10 times longer while the cores are shared with the
 * scrapers, the garbage collector and the sources, and it is those long
 * stretches that make a scrape's worst latency.
 */

/** Wall time of one slice (ms): a scrape waits at most about this long for collection work. */
export const SLICE_MS = 8;
/** The clock is read once per this many due() calls: a check per item would cost more than the items. */
export const CHECK_EVERY = 32;

/** One turn of the event loop: pending I/O callbacks (an incoming scrape) run before the work goes on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The slices of one piece of work. In a loop:
 *
 *   if (slices.due()) await slices.next();
 */
export class TimeSlices {
  private started: number;
  private calls = 0;

  /** `clock` gives monotonic milliseconds; tests pass one that moves with the work done, not with the machine's load. */
  constructor(
    private readonly sliceMs: number = SLICE_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.started = clock();
  }

  /** Whether the current slice is used up (true at most once per CHECK_EVERY calls). */
  due(): boolean {
    if (++this.calls % CHECK_EVERY !== 0) return false;
    return this.clock() - this.started >= this.sliceMs;
  }

  /** Yields to the event loop and starts the next slice. */
  async next(): Promise<void> {
    await yieldToEventLoop();
    this.started = this.clock();
  }
}
