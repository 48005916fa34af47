/**
 * The stop deadline's arithmetic, on an injected clock and fake timers: a
 * step gets what is left less a reserve, and a step still going at the
 * deadline is named as cut short.
 */
import { StopDeadline } from '../../src/stop-deadline';

describe('StopDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives each step what is left of the deadline, less a reserve, at most its own cap', () => {
    const clock = { ms: 1_000 };
    const deadline = new StopDeadline(10_000, () => clock.ms);
    expect(deadline.budgetMs(5_000)).toBe(5_000);
    clock.ms += 7_000;
    expect(deadline.budgetMs(5_000)).toBe(2_500);
    expect(deadline.budgetMs()).toBe(2_500);
    clock.ms += 5_000;
    expect(deadline.budgetMs(5_000)).toBe(0);
  });

  it('waits for a step until the deadline and names it when it was cut short', async () => {
    const deadline = new StopDeadline(10_000, () => Date.now());
    expect(await deadline.bound('quick', Promise.resolve())).toBe(true);
    expect(await deadline.bound('failing', Promise.reject(new Error('x')))).toBe(true);
    const hanging = deadline.bound('hanging', new Promise(() => undefined));
    await jest.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void hanging.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await hanging).toBe(false);
    expect(deadline.cutShort).toEqual(['hanging']);
  });
});
