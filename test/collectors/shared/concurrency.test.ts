import { forEachConcurrent } from '../../../src/collectors/shared/concurrency';

/** A work function whose calls stay open until released, recording what ran and how many at once. */
function gatedWork() {
  const started: number[] = [];
  const gates = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let active = 0;
  let peak = 0;
  const work = (item: number): Promise<void> => {
    started.push(item);
    active += 1;
    peak = Math.max(peak, active);
    return new Promise<void>((resolve, reject) => gates.set(item, { resolve, reject })).finally(() => {
      active -= 1;
    });
  };
  return { work, started, gates, peak: () => peak };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('forEachConcurrent', () => {
  it('runs every item, never more than the limit at once', async () => {
    const { work, started, gates, peak } = gatedWork();
    const done = forEachConcurrent([1, 2, 3, 4, 5, 6, 7], 3, new AbortController().signal, work);
    for (let round = 0; round < 7; round++) {
      await settle();
      const open = [...gates.keys()][round] as number;
      gates.get(open)?.resolve();
    }
    await done;
    expect(started.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(peak()).toBe(3);
  });

  it('starts no further item after the first failure and rejects with it', async () => {
    const { work, started, gates } = gatedWork();
    const done = forEachConcurrent([1, 2, 3, 4, 5, 6], 2, new AbortController().signal, work);
    const outcome = done.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await settle();
    gates.get(1)?.reject(new Error('HTTP 500'));
    await settle();
    gates.get(2)?.resolve();
    await settle();
    expect(await outcome).toBe('HTTP 500');
    expect(started).toEqual([1, 2]);
  });

  it('starts nothing once the run is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('time limit'));
    const { work, started } = gatedWork();
    await expect(forEachConcurrent([1, 2], 2, controller.signal, work)).rejects.toThrow('time limit');
    expect(started).toEqual([]);
  });
});
