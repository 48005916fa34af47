import { EventLedger, WATERMARK_OVERLAP_MS } from '../../../src/collectors/management/ledger';

const MIN = 60_000;

describe('event ledger (watermark, overlap, id de-duplication)', () => {
  it('counts nothing before collecting started, then each new event exactly once across overlapping reads', () => {
    const t0 = 1_000 * MIN;
    const first = new EventLedger(undefined, { windowStart: t0 - 1440 * MIN, collectingSince: t0, now: t0 });
    expect(first.since).toBe(t0 - 1440 * MIN);
    for (const [id, time] of [['a', t0 - 30 * MIN], ['b', t0 - 1 * MIN]] as const) {
      first.observe(time);
      expect(first.admit(id, time)).toBe(false);
    }
    const afterFirst = first.finish();
    expect(afterFirst.watermark).toBe(t0 - 1 * MIN);

    const second = new EventLedger(afterFirst, { windowStart: 0, collectingSince: t0, now: t0 });
    expect(second.since).toBe(t0 - 1 * MIN - WATERMARK_OVERLAP_MS);
    // the overlap brings b back: not counted again; c is new
    second.observe(t0 - 1 * MIN);
    expect(second.admit('b', t0 - 1 * MIN)).toBe(false);
    second.observe(t0 + 2 * MIN);
    expect(second.admit('c', t0 + 2 * MIN)).toBe(true);
    expect(second.admit('c', t0 + 2 * MIN)).toBe(false);
    const afterSecond = second.finish();

    const third = new EventLedger(afterSecond, { windowStart: 0, collectingSince: t0, now: t0 + 5 * MIN });
    third.observe(t0 + 2 * MIN);
    expect(third.admit('c', t0 + 2 * MIN)).toBe(false);
    // an event older than countFrom (history, or forgotten after counting) is never counted
    expect(third.admit('old', t0 - 60 * MIN)).toBe(false);
    // ...unless it is known to have happened after collecting started (followed while running)
    expect(third.admit('late', t0 - 60 * MIN, true)).toBe(true);
    expect(third.admit('late', t0 - 60 * MIN, true)).toBe(false);
  });

  it('keeps only ids inside the overlap', () => {
    let state = new EventLedger(undefined, { windowStart: 0, collectingSince: 0, now: 0 }).finish();
    for (let run = 1; run <= 50; run++) {
      const ledger = new EventLedger(state, { windowStart: 0, collectingSince: 0, now: run * 5 * MIN + 10_000 });
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
    const first = new EventLedger(undefined, { windowStart: now - 1440 * MIN, collectingSince: now, now });
    first.observe(now - MIN);
    first.admit('a', now - MIN);
    const ledger = new EventLedger(first.finish(), { windowStart: 0, collectingSince: now, now: now + MIN });
    ledger.observe(now + 1440 * MIN);
    expect(ledger.admit('ahead', now + 1440 * MIN)).toBe(true);
    expect(ledger.ahead).toBe(1);
    const state = ledger.finish();
    expect(state.watermark).toBe(now + MIN + WATERMARK_OVERLAP_MS);
    const next = new EventLedger(state, { windowStart: 0, collectingSince: now, now: now + 2 * MIN });
    expect(next.since).toBe(now + MIN); // still reads the events that appear now
    next.observe(now + 1440 * MIN);
    expect(next.admit('ahead', now + 1440 * MIN)).toBe(false); // counted once
    expect(next.admit('b', now + 2 * MIN)).toBe(true);
  });

  it('counts, in the first run that succeeds, the events after collecting started: earlier runs may have failed', () => {
    const started = 1_000 * MIN;
    const now = started + 90 * MIN; // the runs in between failed: they left no state
    const ledger = new EventLedger(undefined, { windowStart: now - 60 * MIN, collectingSince: started, now });
    expect(ledger.first).toBe(true);
    expect(ledger.since).toBe(started); // further back than the window: nothing after the start is left unread
    const events = [['history', started - MIN], ['at-start', started], ['after', started + 1], ['late', started + 80 * MIN]] as const;
    const counted = events.filter(([id, time]) => {
      ledger.observe(time);
      return ledger.admit(id, time);
    });
    expect(counted.map(([id]) => id)).toEqual(['after', 'late']);
    // a listing that shows an event twice (paging over changing data) takes it once, history included
    expect(ledger.admit('history', started - MIN)).toBe(false);
    expect(ledger.has('history')).toBe(true);
    expect(ledger.admit('after', started + 1)).toBe(false);

    const next = new EventLedger(ledger.finish(), { windowStart: 0, collectingSince: started, now: now + 5 * MIN });
    expect(next.first).toBe(false);
    for (const [id, time] of events) expect(next.admit(id, time)).toBe(false);
    expect(next.admit('new', now + MIN)).toBe(true);
  });

  it('reads a first run from the window when collecting started inside it', () => {
    const now = 1_000 * MIN;
    const ledger = new EventLedger(undefined, { windowStart: now - 60 * MIN, collectingSince: now, now });
    expect(ledger.since).toBe(now - 60 * MIN);
    ledger.observe(now - 30 * MIN);
    expect(ledger.admit('history', now - 30 * MIN)).toBe(false);
    expect(ledger.finish().countFrom).toBe(now + 1);
  });
});
