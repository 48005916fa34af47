import { getEventListeners, getMaxListeners } from 'node:events';
import { LinkedSignal } from '../../src/util/linked-signal';

describe('LinkedSignal', () => {
  afterEach(() => jest.useRealTimers());

  it('aborts with its parent, for the parent\'s reason, not as a time-out', () => {
    const parent = new AbortController();
    const linked = new LinkedSignal(parent.signal, 60_000);
    parent.abort(new Error('stopping'));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('stopping');
    expect(linked.timedOut).toBe(false);
    linked.dispose();
  });

  it('aborts at its time limit and says so, leaving the parent as it was', () => {
    jest.useFakeTimers();
    const parent = new AbortController();
    const linked = new LinkedSignal(parent.signal, 5_000);
    jest.advanceTimersByTime(4_999);
    expect(linked.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.timedOut).toBe(true);
    expect(parent.signal.aborted).toBe(false);
  });

  it('starts aborted under an aborted parent', () => {
    const parent = new AbortController();
    parent.abort();
    expect(new LinkedSignal(parent.signal, 1_000).signal.aborted).toBe(true);
  });

  it('once disposed, holds nothing on its parent and no timer (one per HTTP attempt must not pile up)', () => {
    jest.useFakeTimers();
    const parent = new AbortController();
    for (let i = 0; i < 10_000; i++) new LinkedSignal(parent.signal, 30_000).dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    expect(jest.getTimerCount()).toBe(0);
    const disposed = new LinkedSignal(parent.signal, 30_000);
    disposed.dispose();
    parent.abort();
    expect(disposed.signal.aborted).toBe(false);
  });

  it('takes any number of linked signals in flight without a "possible memory leak" warning', () => {
    const run = new LinkedSignal(undefined);
    // Node warns past this many listeners of one kind (10 unless set).
    expect(getMaxListeners(run.signal)).toBe(Infinity);
    const inFlight = Array.from({ length: 50 }, () => new LinkedSignal(run.signal, 30_000));
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(50);
    run.abort();
    expect(inFlight.every((linked) => linked.signal.aborted)).toBe(true);
    inFlight.forEach((linked) => linked.dispose());
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });
});
