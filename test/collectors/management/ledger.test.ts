import { EventLedger, WATERMARK_OVERLAP_MS } from '../../../src/collectors/management/ledger';

const MIN = 60_000;

describe('event ledger (watermark, overlap, id de-duplication)', () => {
  it('counts nothing in the first run, then each new event exactly once across overlapping reads', () => {
    const t0 = 1_000 * MIN;
    const first = new EventLedger(undefined, t0 - 1440 * MIN, t0);
    expect(first.since).toBe(t0 - 1440 * MIN);
    for (const [id, time] of [['a', t0 - 30 * MIN], ['b', t0 - 1 * MIN]] as const) {
      first.observe(time);
      expect(first.admit(id, time)).toBe(false);
    }
    const afterFirst = first.finish();
    expect(afterFirst.watermark).toBe(t0 - 1 * MIN);

    const second = new EventLedger(afterFirst, 0, t0);
    expect(second.since).toBe(t0 - 1 * MIN - WATERMARK_OVERLAP_MS);
    // the overlap brings b back: not counted again; c is new
    second.observe(t0 - 1 * MIN);
    expect(second.admit('b', t0 - 1 * MIN)).toBe(false);
    second.observe(t0 + 2 * MIN);
    expect(second.admit('c', t0 + 2 * MIN)).toBe(true);
    expect(second.admit('c', t0 + 2 * MIN)).toBe(false);
    const afterSecond = second.finish();

    const third = new EventLedger(afterSecond, 0, t0 + 5 * MIN);
    third.observe(t0 + 2 * MIN);
    expect(third.admit('c', t0 + 2 * MIN)).toBe(false);
    // an event older than countFrom (history, or forgotten after counting) is never counted
    expect(third.admit('old', t0 - 60 * MIN)).toBe(false);
    // ...unless it is known to have happened after start (followed while running)
    expect(third.admitFollowed('late', t0 - 60 * MIN)).toBe(true);
    expect(third.admitFollowed('late', t0 - 60 * MIN)).toBe(false);
  });

  it('keeps only ids inside the overlap', () => {
    let state = new EventLedger(undefined, 0, 0).finish();
    for (let run = 1; run <= 50; run++) {
      const ledger = new EventLedger(state, 0, run * 5 * MIN + 10_000);
      for (let i = 0; i < 10; i++) {
        const time = run * 5 * MIN + i * 1000;
        ledger.observe(time);
        ledger.admit(`r${run}-${i}`, time);
      }
      state = ledger.finish();
    }
    // runs 5 minutes apart, overlap 10 minutes: at most three runs' ids remembered
    expect(state.seen.size).toBeLessThanOrEqual(30);
    expect(state.seen.size).toBeGreaterThanOrEqual(10);
  });

  it('does not let one event dated far ahead carry the watermark past the exporter\'s clock', () => {
    const now = 1_000 * MIN;
    const first = new EventLedger(undefined, now - 1440 * MIN, now);
    first.observe(now - MIN);
    first.admit('a', now - MIN);
    const ledger = new EventLedger(first.finish(), 0, now + MIN);
    ledger.observe(now + 1440 * MIN);
    expect(ledger.admit('ahead', now + 1440 * MIN)).toBe(true);
    expect(ledger.ahead).toBe(1);
    const state = ledger.finish();
    expect(state.watermark).toBe(now + MIN + WATERMARK_OVERLAP_MS);
    const next = new EventLedger(state, 0, now + 2 * MIN);
    expect(next.since).toBe(now + MIN); // still reads the events that appear now
    next.observe(now + 1440 * MIN);
    expect(next.admit('ahead', now + 1440 * MIN)).toBe(false); // counted once
    expect(next.admit('b', now + 2 * MIN)).toBe(true);
  });
});
