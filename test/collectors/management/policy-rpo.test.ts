import { graceMs, isoDurationMs, MIN_SHARE_GRACE_MS, policyRpo, readProtectionSchedule } from '../../../src/collectors/management/policy-rpo';
import { defaultSettings } from '../../support/collect';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A policy's stages with one PROTECTION stage whose operations have these schedules. */
function stages(...schedules: unknown[]): unknown[] {
  return [
    { id: 'p', type: 'PROTECTION', operations: schedules.map((schedule) => ({ type: 'AUTO_FULL', schedule })) },
    { id: 'r', type: 'REPLICATION', operations: [{ type: 'AUTO_FULL', schedule: { frequency: 'HOURLY', interval: 1, duration: 'PT10M' } }] },
  ];
}

const GOLD = { id: 'policy-1', name: 'Gold' };

describe('RPO from the PROTECTION schedule', () => {
  it.each([
    ['MINUTELY', 30, 30 * 60_000],
    ['MINUTELY', 240, 4 * HOUR],
    ['HOURLY', 1, HOUR],
    ['HOURLY', 6, 6 * HOUR],
    ['DAILY', 1, DAY],
    ['DAILY', 2, 2 * DAY],
    ['WEEKLY', 1, 7 * DAY],
    ['WEEKLY', 2, 14 * DAY],
    ['MONTHLY', 1, 31 * DAY],
    ['MONTHLY', 3, 93 * DAY],
    ['YEARLY', 1, 366 * DAY],
  ])('%s every %i: period %i ms', (frequency, interval, periodMs) => {
    // a sub-daily schedule's duration is its daily window (policy-rpo-window.test.ts): a whole day runs around the clock
    const duration = periodMs < DAY ? 'PT24H' : 'PT2H';
    const windowMs = periodMs < DAY ? null : 2 * HOUR;
    expect(readProtectionSchedule(stages({ frequency, interval, startTime: '2026-11-01T20:00:00Z', duration }))).toEqual({ readable: true, periodMs, windowMs });
  });

  it('adds the schedule duration to the period', () => {
    const schedule = readProtectionSchedule(stages({ frequency: 'DAILY', interval: 1, duration: 'PT90M' }));
    expect(policyRpo(GOLD, schedule, defaultSettings())).toEqual({ ms: DAY + 90 * 60_000, source: 'schedule' });
  });

  it('without a duration, adds rpoGrace: 25 % of the period by default, never less than the floor', () => {
    const daily = readProtectionSchedule(stages({ frequency: 'DAILY', interval: 1 }));
    const hourly = readProtectionSchedule(stages({ frequency: 'HOURLY', interval: 2, duration: null }));
    expect(policyRpo(GOLD, daily, defaultSettings())).toEqual({ ms: DAY + 6 * HOUR, source: 'schedule' });
    // 25 % of 2 h is 30 min: the floor (1 h) applies
    expect(MIN_SHARE_GRACE_MS).toBe(HOUR);
    expect(policyRpo(GOLD, hourly, defaultSettings())).toEqual({ ms: 3 * HOUR, source: 'schedule' });
    expect(policyRpo(GOLD, daily, defaultSettings({ rpoGrace: { kind: 'share', share: 0.5 } })).ms).toBe(DAY + 12 * HOUR);
    // a fixed grace is taken as given, below the floor too
    expect(policyRpo(GOLD, hourly, defaultSettings({ rpoGrace: { kind: 'fixed', ms: 10 * 60_000 } })).ms).toBe(2 * HOUR + 10 * 60_000);
    expect(graceMs(8 * HOUR, { kind: 'share', share: 0.25 })).toBe(2 * HOUR);
  });

  it('takes the most frequent scheduled operation, and skips operations without a schedule', () => {
    const schedule = readProtectionSchedule(
      stages({ frequency: 'WEEKLY', interval: 1, duration: 'PT8H' }, null, { frequency: 'HOURLY', interval: 12, duration: 'PT24H' }, { frequency: 'DAILY', interval: 1 }),
    );
    expect(schedule).toEqual({ readable: true, periodMs: 12 * HOUR, windowMs: null });
  });

  it('an operation it cannot read costs that operation only, and is named in skipped', () => {
    const schedule = readProtectionSchedule(stages({ frequency: 'DAILY', interval: 1, duration: 'PT2H' }, { frequency: 'CONTINUOUS', interval: 15 }, { frequency: 'HOURLY' }));
    expect(schedule).toEqual({ readable: true, periodMs: DAY, windowMs: 2 * HOUR, skipped: 'unknown schedule frequency "CONTINUOUS"' });
    expect(policyRpo(GOLD, schedule, defaultSettings())).toEqual({ ms: DAY + 2 * HOUR, source: 'schedule' });
    // a MINUTELY policy's RPO comes from its schedule, not the 24 h default
    const everyHalfHour = readProtectionSchedule(stages({ frequency: 'MINUTELY', interval: 30, duration: 'PT24H' }));
    expect(policyRpo(GOLD, everyHalfHour, defaultSettings({ defaultRpo: DAY }))).toEqual({ ms: 90 * 60_000, source: 'schedule' });
  });

  it('precedence: rpoByPolicy by name, then by id, then the schedule, then defaultRpo', () => {
    const schedule = readProtectionSchedule(stages({ frequency: 'HOURLY', interval: 4, duration: 'PT24H' }));
    expect(policyRpo(GOLD, schedule, defaultSettings({ rpoByPolicy: { Gold: 2 * HOUR, 'policy-1': 3 * HOUR } }))).toEqual({ ms: 2 * HOUR, source: 'config' });
    expect(policyRpo(GOLD, schedule, defaultSettings({ rpoByPolicy: { 'policy-1': 3 * HOUR } }))).toEqual({ ms: 3 * HOUR, source: 'config' });
    expect(policyRpo(GOLD, schedule, defaultSettings({ rpoByPolicy: { Silver: HOUR }, defaultRpo: 9 * HOUR }))).toEqual({ ms: 5 * HOUR, source: 'schedule' });
    expect(policyRpo(GOLD, undefined, defaultSettings({ defaultRpo: 9 * HOUR }))).toEqual({ ms: 9 * HOUR, source: 'default' });
    expect(policyRpo({ id: null, name: '' }, undefined, defaultSettings({ defaultRpo: 9 * HOUR }))).toEqual({ ms: 9 * HOUR, source: 'default' });
  });

  it.each<[string, unknown, RegExp]>([
    ['a null schedule only', stages(null), /no scheduled PROTECTION operation/],
    ['an unknown frequency', stages({ frequency: 'CONTINUOUS', interval: 1, duration: 'PT1H' }), /unknown schedule frequency "CONTINUOUS"/],
    ['no frequency', stages({ interval: 1 }), /without frequency/],
    ['no interval', stages({ frequency: 'DAILY' }), /without a whole interval/],
    ['interval 0', stages({ frequency: 'HOURLY', interval: 0 }), /without a whole interval/],
    ['a fractional interval', stages({ frequency: 'HOURLY', interval: 1.5 }), /without a whole interval/],
    ['a duration that is not ISO 8601', stages({ frequency: 'DAILY', interval: 1, duration: '8 hours' }), /not an ISO 8601 duration/],
    ['a numeric duration (unit unknown)', stages({ frequency: 'DAILY', interval: 1, duration: 3600 }), /not an ISO 8601 duration/],
    ['a schedule that is a string', stages('DAILY'), /not an object/],
    ['no PROTECTION stage', [{ type: 'REPLICATION', operations: [] }], /no PROTECTION stage/],
    ['no stages', undefined, /no stages/],
    ['stages that are not a list', { type: 'PROTECTION' }, /no stages/],
    ['a PROTECTION stage without operations', [{ type: 'PROTECTION' }], /without operations/],
  ])('%s: unreadable, so defaultRpo', (_, input, reason) => {
    const schedule = readProtectionSchedule(input);
    expect(schedule.readable).toBe(false);
    expect(schedule.readable ? '' : schedule.reason).toMatch(reason);
    expect(policyRpo(GOLD, schedule, defaultSettings({ defaultRpo: 30 * HOUR }))).toEqual({ ms: 30 * HOUR, source: 'default' });
  });

  it('reads ISO 8601 durations of days, hours, minutes and seconds, and nothing else', () => {
    expect(isoDurationMs('PT90M')).toBe(90 * 60_000);
    expect(isoDurationMs('PT1H30M')).toBe(90 * 60_000);
    expect(isoDurationMs('P1DT2H')).toBe(26 * HOUR);
    expect(isoDurationMs('PT45S')).toBe(45_000);
    expect(isoDurationMs('PT0S')).toBe(0);
    for (const bad of ['P', 'PT', '90M', 'PT-1H', 'P1M', 'PT1H ', '']) expect({ bad, ms: isoDurationMs(bad) }).toEqual({ bad, ms: undefined });
  });
});
