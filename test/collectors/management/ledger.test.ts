import { EventCounts, WATERMARK_OVERLAP_MS, type CountsState } from '../../../src/collectors/management/ledger';
import type { Tally } from '../../../src/collectors/shared/tally';
import { silentLogger } from '../../support/collect';

const MIN = 60_000;
const KEY: [string] = ['TYPE'];

/** One run's counts: `windowStart` is where a first run reads from at the latest, the others as a collector's context gives them. */
function counts(state: CountsState<[string]> | undefined, times: { windowStart: number; collectingSince: number; now: number }) {
  const window = times.now - times.windowStart;
  return new EventCounts(state, { now: () => new Date(times.now), collectingSince: new Date(times.collectingSince), settings: { window } });
}

const finish = (run: EventCounts<[string]>) => run.finish(silentLogger, 'events');

describe('event counts (watermark, overlap, id de-duplication)', () => {
  it('counts nothing before collecting started, then each new event exactly once across overlapping reads', () => {
    const t0 = 1_000 * MIN;
    const first = counts(undefined, { windowStart: t0 - 1440 * MIN, collectingSince: t0, now: t0 });
    expect(first.since).toBe(t0 - 1440 * MIN);
    for (const [id, time] of [['a', t0 - 30 * MIN], ['b', t0 - 1 * MIN]] as const) {
      first.observe(time);
      expect(first.take(id, time, KEY)).toBe('history');
    }
    const afterFirst = finish(first);
    expect(afterFirst.watermark).toBe(t0 - 1 * MIN);

    const second = counts(afterFirst, { windowStart: 0, collectingSince: t0, now: t0 });
    expect(second.since).toBe(t0 - 1 * MIN - WATERMARK_OVERLAP_MS);
    // the overlap brings b back: not counted again; c is new
    second.observe(t0 - 1 * MIN);
    expect(second.take('b', t0 - 1 * MIN, KEY)).toBeUndefined();
    second.observe(t0 + 2 * MIN);
    expect(second.take('c', t0 + 2 * MIN, KEY)).toBe('counted');
    expect(second.take('c', t0 + 2 * MIN, KEY)).toBeUndefined();
    const afterSecond = finish(second);
    expect(afterSecond.totals).toEqual([{ key: KEY, value: 1 }]);

    const third = counts(afterSecond, { windowStart: 0, collectingSince: t0, now: t0 + 5 * MIN });
    third.observe(t0 + 2 * MIN);
    expect(third.take('c', t0 + 2 * MIN, KEY)).toBeUndefined();
    // an event older than countFrom (history, or forgotten after counting) is never counted
    expect(third.take('old', t0 - 60 * MIN, KEY)).toBeUndefined();
    // ...unless it is known to have happened after collecting started (followed while running)
    expect(third.take('late', t0 - 60 * MIN, KEY, true)).toBe('counted');
    expect(third.take('late', t0 - 60 * MIN, KEY, true)).toBeUndefined();
  });

  it('keeps the window as the times of each label set, however many events share it', () => {
    const t0 = 1_000 * MIN;
    const run = counts(undefined, { windowStart: t0 - 1440 * MIN, collectingSince: t0 - 1440 * MIN, now: t0 });
    for (let i = 0; i < 100; i++) run.take(`e${i}`, t0 - i * MIN, [i % 2 === 0 ? 'BACKUP' : 'RESTORE']);
    const { window, totals } = finish(run);
    expect(window.map(({ key, times }) => [key[0], times.length])).toEqual([['BACKUP', 50], ['RESTORE', 50]]);
    expect(window[0]?.times.slice(0, 2)).toEqual([t0, t0 - 2 * MIN]);
    expect(window[0]?.key).toBe(totals[0]?.key);
    expect(totals.map(({ key, value }) => [key[0], value])).toEqual([['BACKUP', 50], ['RESTORE', 50]]);
  });

  it('slides the window: events leave it, their set shows 0, and a run leaves the state it started from as it was', () => {
    const t0 = 1_000 * MIN;
    const first = counts(undefined, { windowStart: t0 - 60 * MIN, collectingSince: t0 - 60 * MIN, now: t0 });
    for (const [id, minutes, type] of [['a', 50, 'BACKUP'], ['b', 20, 'BACKUP'], ['c', 40, 'RESTORE'], ['z', 90, 'DELETE']] as const) {
      first.take(id, t0 - minutes * MIN, [type]);
    }
    const state = finish(first);
    const byType = (tally: Tally<[string]>) =>
      tally.samples('dataprotect_audit_events_window', {}, ['type']).map((sample) => [sample.labels.type, sample.value]);
    // z, history from before the window, shows its label set with 0
    expect(byType(first.inWindow())).toEqual([['BACKUP', 2], ['RESTORE', 1], ['DELETE', 0]]);

    // 30 minutes later the window starts at t0 - 30 min: only b is inside, and d joins it
    const later = counts(state, { windowStart: t0 - 30 * MIN, collectingSince: t0 - 60 * MIN, now: t0 + 30 * MIN });
    later.take('d', t0 + 10 * MIN, ['BACKUP']);
    expect(byType(later.inWindow())).toEqual([['BACKUP', 2], ['RESTORE', 0], ['DELETE', 0]]);
    expect(state.window.map(({ key, times }) => [key[0], times.length])).toEqual([['BACKUP', 2], ['RESTORE', 1], ['DELETE', 0]]);
    // the state counted again, its window's label arrays equal to the totals' but not theirs (as a state rebuilt elsewhere would be)
    const rebuilt = { ...state, window: state.window.map(({ key, times }) => ({ key: [...key] as [string], times })) };
    expect(byType(counts(rebuilt, { windowStart: t0 - 60 * MIN, collectingSince: t0 - 60 * MIN, now: t0 }).inWindow())).toEqual([
      ['BACKUP', 2],
      ['RESTORE', 1],
      ['DELETE', 0],
    ]);
  });

  it('keeps only ids inside the overlap', () => {
    let state = finish(counts(undefined, { windowStart: 0, collectingSince: 0, now: 0 }));
    for (let run = 1; run <= 50; run++) {
      const ledger = counts(state, { windowStart: 0, collectingSince: 0, now: run * 5 * MIN + 10_000 });
      for (let i = 0; i < 10; i++) {
        const time = run * 5 * MIN + i * 1000;
        ledger.observe(time);
        ledger.take(`r${run}-${i}`, time, KEY);
      }
      state = finish(ledger);
    }
    // runs 5 minutes apart, overlap 10 minutes: at most three runs' ids remembered
    expect(state.seen.size).toBeLessThanOrEqual(30);
    expect(state.seen.size).toBeGreaterThanOrEqual(10);
  });

  it('does not let one event dated far ahead carry the watermark past the exporter\'s clock', () => {
    const now = 1_000 * MIN;
    const first = counts(undefined, { windowStart: now - 1440 * MIN, collectingSince: now, now });
    first.observe(now - MIN);
    first.take('a', now - MIN, KEY);
    const ledger = counts(finish(first), { windowStart: 0, collectingSince: now, now: now + MIN });
    ledger.observe(now + 1440 * MIN);
    expect(ledger.take('ahead', now + 1440 * MIN, KEY)).toBe('counted');
    expect(ledger.ahead).toBe(1);
    const state = finish(ledger);
    expect(state.watermark).toBe(now + MIN + WATERMARK_OVERLAP_MS);
    const next = counts(state, { windowStart: 0, collectingSince: now, now: now + 2 * MIN });
    expect(next.since).toBe(now + MIN); // still reads the events that appear now
    next.observe(now + 1440 * MIN);
    expect(next.take('ahead', now + 1440 * MIN, KEY)).toBeUndefined(); // counted once
    expect(next.take('b', now + 2 * MIN, KEY)).toBe('counted');
  });

  it('counts, in the first run that succeeds, the events after collecting started: earlier runs may have failed', () => {
    const started = 1_000 * MIN;
    const now = started + 90 * MIN; // the runs in between failed: they left no state
    const ledger = counts(undefined, { windowStart: now - 60 * MIN, collectingSince: started, now });
    expect(ledger.first).toBe(true);
    expect(ledger.since).toBe(started); // further back than the window: nothing after the start is left unread
    const events = [['history', started - MIN], ['at-start', started], ['after', started + 1], ['late', started + 80 * MIN]] as const;
    const counted = events.filter(([id, time]) => {
      ledger.observe(time);
      return ledger.take(id, time, KEY) === 'counted';
    });
    expect(counted.map(([id]) => id)).toEqual(['after', 'late']);
    // a listing that shows an event twice (paging over changing data) takes it once, history included
    expect(ledger.take('history', started - MIN, KEY)).toBeUndefined();
    expect(ledger.take('after', started + 1, KEY)).toBeUndefined();

    const next = counts(finish(ledger), { windowStart: 0, collectingSince: started, now: now + 5 * MIN });
    expect(next.first).toBe(false);
    for (const [id, time] of events) expect(next.take(id, time, KEY)).toBeUndefined();
    expect(next.take('new', now + MIN, KEY)).toBe('counted');
  });

  it('reads a first run from the window when collecting started inside it', () => {
    const now = 1_000 * MIN;
    const ledger = counts(undefined, { windowStart: now - 60 * MIN, collectingSince: now, now });
    expect(ledger.since).toBe(now - 60 * MIN);
    ledger.observe(now - 30 * MIN);
    expect(ledger.take('history', now - 30 * MIN, KEY)).toBe('history');
    // what is newer than the newest event read was not there yet: it counts when it appears (a service clock behind the exporter's)
    expect(finish(ledger).countFrom).toBe(now - 30 * MIN + 1);
  });
});
