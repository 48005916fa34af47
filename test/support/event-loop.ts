/**
 * How long some work held the event loop at a stretch, measured in work done
 * rather than in wall time, so that the answer is the same on an idle machine
 * and on a loaded one.
 *
 * While the work runs, performance.now() is a clock that moves MS_PER_READ each
 * time it is read: the code's time slices (src/util/time-slices.ts) read it once
 * per CHECK_EVERY items, so the clock counts items and a slice ends after a
 * fixed number of them. A setImmediate ticker counts the event loop's turns;
 * the longest stretch is the most clock time that passed between two turns (or
 * since the last one), which is what a /metrics scrape arriving then would
 * have waited behind.
 */
const MS_PER_READ = 1;

export interface Stretches<T> {
  readonly result: T;
  /** event-loop turns while the work ran */
  readonly turns: number;
  /** the most clock time between two turns */
  readonly longestStretchMs: number;
  /** all the clock time the work used */
  readonly totalMs: number;
}

export async function stretchesDuring<T>(work: () => Promise<T>): Promise<Stretches<T>> {
  let now = 0;
  const clock = jest.spyOn(performance, 'now').mockImplementation(() => (now += MS_PER_READ));
  let last = now;
  let longestStretchMs = 0;
  let turns = 0;
  let running = true;
  const tick = (): void => {
    turns++;
    longestStretchMs = Math.max(longestStretchMs, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    clock.mockRestore();
  }
  longestStretchMs = Math.max(longestStretchMs, now - last);
  return { result, turns, longestStretchMs, totalMs: now };
}
