import { TimeSlices, yieldToEventLoop } from '../../src/util/time-slices';

describe('TimeSlices', () => {
  it('is not due before the slice time has passed, however many items', () => {
    const slices = new TimeSlices(60_000);
    for (let i = 0; i < 10_000; i++) expect(slices.due()).toBe(false);
  });

  it('is due once the slice time has passed, looking at the clock every 32 items', async () => {
    const slices = new TimeSlices(5);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const dueAt: number[] = [];
    for (let i = 1; i <= 64; i++) if (slices.due()) dueAt.push(i);
    expect(dueAt).toEqual([32, 64]);
  });

  it('lets pending callbacks run at next(), and starts a new slice', async () => {
    const slices = new TimeSlices(100); // long enough that a loaded machine does not use up the new slice below
    await new Promise((resolve) => setTimeout(resolve, 120));
    let ran = false;
    setImmediate(() => (ran = true));
    await slices.next();
    expect(ran).toBe(true);
    for (let i = 0; i < 32; i++) expect(slices.due()).toBe(false); // the new slice has not used its 100 ms
  });

  it('yieldToEventLoop resolves after callbacks already queued', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('queued'));
    await yieldToEventLoop();
    order.push('after');
    expect(order).toEqual(['queued', 'after']);
  });
});
