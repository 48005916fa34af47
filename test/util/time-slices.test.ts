import { CHECK_EVERY, TimeSlices, yieldToEventLoop } from '../../src/util/time-slices';

/** A clock that moves only when the test moves it, and counts how often it is read. */
function manualClock(): { now: () => number; advance: (ms: number) => void; reads: () => number } {
  let time = 1_000;
  let reads = 0;
  return {
    now: () => {
      reads++;
      return time;
    },
    advance: (ms) => (time += ms),
    reads: () => reads,
  };
}

describe('TimeSlices', () => {
  it('is not due before the slice time has passed, however many items', () => {
    const clock = manualClock();
    const slices = new TimeSlices(5, clock.now);
    clock.advance(4.9);
    for (let i = 0; i < 10_000; i++) expect(slices.due()).toBe(false);
  });

  it('is due once the slice time has passed, looking at the clock every 32 items', () => {
    const clock = manualClock();
    const slices = new TimeSlices(5, clock.now);
    const readsAtStart = clock.reads();
    clock.advance(5);
    const dueAt: number[] = [];
    for (let i = 1; i <= 2 * CHECK_EVERY; i++) if (slices.due()) dueAt.push(i);
    expect(dueAt).toEqual([CHECK_EVERY, 2 * CHECK_EVERY]);
    expect(clock.reads() - readsAtStart).toBe(2);
  });

  it('lets pending callbacks run at next(), and starts a new slice at the time it resumes', async () => {
    const clock = manualClock();
    const slices = new TimeSlices(100, clock.now);
    clock.advance(120);
    let ran = false;
    setImmediate(() => {
      ran = true;
      clock.advance(30); // time spent by the callbacks let in belongs to no slice
    });
    await slices.next();
    expect(ran).toBe(true);
    clock.advance(99);
    for (let i = 0; i < CHECK_EVERY; i++) expect(slices.due()).toBe(false); // 99 of the new slice's 100 ms
    clock.advance(1);
    for (let i = 1; i < CHECK_EVERY; i++) expect(slices.due()).toBe(false);
    expect(slices.due()).toBe(true);
  });

  it('yieldToEventLoop resolves after callbacks already queued', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('queued'));
    await yieldToEventLoop();
    order.push('after');
    expect(order).toEqual(['queued', 'after']);
  });
});
