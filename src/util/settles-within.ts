/**
 * Whether `work` settles (fulfilled or rejected) within `ms`: the one way a
 * wait for work that is not cancelled here is bounded (closing connections,
 * a step of the stop, the last telemetry export). The timer is cleared as
 * soon as the work settles.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([work.then(() => true, () => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
