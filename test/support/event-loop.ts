/**
 * How long the event loop was held during some work: a 1 ms timer ticks while
 * it runs, and the longest stretch between two ticks (or since the last one)
 * is what a /metrics scrape arriving then would have waited.
 */
export async function longestGapDuring<T>(work: () => Promise<T>): Promise<{ result: T; longestGapMs: number; tookMs: number }> {
  let last = performance.now();
  let longestGapMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(ticker);
  }
  longestGapMs = Math.max(longestGapMs, performance.now() - last);
  return { result, longestGapMs, tookMs: performance.now() - started };
}
