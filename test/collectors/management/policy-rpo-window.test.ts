/**
 * A sub-daily schedule's `duration` is its daily backup window (the products' "start time / end time"): the HOURLY or MINUTELY
 * runs happen only inside it, from `startTime` each day. The longest time between two copies is then from the last run of one
 * day's window to the first run of the next day's, not one period: an RPO of one period plus the window flags every asset of
 * the policy each day outside the window (false alerts); a window of a whole day runs around the clock.
 */
import { parseConfig, type TargetConfig } from '../../../src/config/load';
import { ManagementClient } from '../../../src/clients/management/client';
import { protectionPoliciesCollector } from '../../../src/collectors/management/protection-policies';
import { readProtectionSchedule, policyRpo } from '../../../src/collectors/management/policy-rpo';
import { defaultSettings, runCollector, silentLogger, valueOf } from '../../support/collect';
import { scripted } from '../../support/scripted-server';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const policy = (id: string, schedule: Record<string, unknown>) => ({
  id,
  name: id,
  type: 'ACTIVE',
  enabled: true,
  stages: [{ id: `${id}-p`, type: 'PROTECTION', operations: [{ type: 'AUTO_FULL', schedule: { startTime: '2026-11-01T20:00:00Z', ...schedule } }] }],
});

/** The newest copy's greatest age under a schedule that runs every `periodMs` from `startOffsetMs` while inside [0, windowMs) of each day. */
function longestGapMs(periodMs: number, windowMs: number): number {
  const runs: number[] = [];
  for (let day = 0; day < 3; day++) for (let at = 0; at < Math.min(windowMs, DAY); at += periodMs) runs.push(day * DAY + at);
  return Math.max(...runs.slice(1).map((at, i) => at - (runs[i] as number)));
}

describe('RPO of a schedule that runs inside a daily window', () => {
  it.each([
    ['HOURLY', 1, 'PT10H', HOUR, 10 * HOUR],
    ['HOURLY', 4, 'PT8H', 4 * HOUR, 8 * HOUR],
    ['HOURLY', 12, 'PT3H', 12 * HOUR, 3 * HOUR],
    ['MINUTELY', 30, 'PT20M', 30 * 60_000, 20 * 60_000],
    ['MINUTELY', 15, 'PT6H', 15 * 60_000, 6 * HOUR],
  ])('%s every %i inside a window of %s: the RPO covers the gap between two days\' windows', (frequency, interval, duration, periodMs, windowMs) => {
    const rpo = policyRpo({ id: 'p', name: 'p' }, readProtectionSchedule(policy('p', { frequency, interval, duration }).stages), defaultSettings());
    expect({ frequency, interval, duration, covered: rpo.ms > longestGapMs(periodMs, windowMs) }).toEqual({ frequency, interval, duration, covered: true });
  });

  it('an hourly schedule whose window is the whole day runs around the clock: its RPO is not a day', () => {
    const rpo = policyRpo({ id: 'p', name: 'p' }, readProtectionSchedule(policy('p', { frequency: 'HOURLY', interval: 2, duration: 'PT24H' }).stages), defaultSettings());
    expect(rpo).toEqual({ ms: 2 * HOUR + HOUR, source: 'schedule' });
  });

  it('daily and longer schedules keep one period plus the window', () => {
    const daily = readProtectionSchedule(policy('p', { frequency: 'DAILY', interval: 1, duration: 'PT10H' }).stages);
    expect(policyRpo({ id: 'p', name: 'p' }, daily, defaultSettings())).toEqual({ ms: DAY + 10 * HOUR, source: 'schedule' });
  });

  it('the protection-policies collector exports it over HTTP', async () => {
    const policies = [policy('night-hourly', { frequency: 'HOURLY', interval: 1, duration: 'PT10H' }), policy('all-day', { frequency: 'HOURLY', interval: 1, duration: 'PT24H' })];
    const server = await scripted((method, path) => {
      if (method === 'POST' && path === '/api/v2/login') return { status: 200, body: { access_token: 'tok', expires_in: 28800 } };
      if (method === 'POST' && path === '/api/v2/logout') return { status: 204 };
      if (path === '/api/v2/protection-policies') return { status: 200, body: { content: policies, page: { size: 100, number: 1, totalPages: 1, totalElements: policies.length } } };
      return { status: 404, body: { code: 404, reason: 'not found' } };
    });
    const target = parseConfig({ targets: [{ name: 'mgmt', kind: 'management', url: server.url, username: 'u', password: 'p', maxAttempts: 1 }] }).targets[0] as TargetConfig & { kind: 'management' };
    const client = new ManagementClient(target, { logger: silentLogger });
    try {
      const result = await runCollector(protectionPoliciesCollector, { target, client });
      const rpoOf = (id: string) => valueOf(result, 'dataprotect_policy_rpo_seconds', { policy_id: id }) ?? Number.NaN;
      // runs 20:00 to 05:00: the 05:00 copy is the newest until 20:00 the next day
      expect(rpoOf('night-hourly')).toBeGreaterThan(15 * 3600);
      expect(rpoOf('all-day')).toBe(2 * 3600);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
