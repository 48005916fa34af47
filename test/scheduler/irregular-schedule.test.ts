/**
 * A collector that keeps succeeding keeps its series between two runs, however long its schedule (docs/configuration.md,
 * staleAfter). A cron schedule's gaps need not be equal: business hours ("0 8-18 * * *") run hourly by day and not at night,
 * weekdays-only ones not at weekends. Its interval (what the series are served for, what the alerts judge staleness by, what a
 * run's default time limit comes from) must be its longest gap, not whichever gap happens to come next.
 */
import { parseConfig } from '../../src/config/load';
import { defineCollector } from '../../src/collectors/types';
import { ExporterRuntime } from '../../src/runtime';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { scheduleGaps, scheduleIntervalSeconds } from '../../src/scheduler/interval';
import { silentLogger } from '../support/collect';

const HOUR = 3_600_000;
/** Monday 2 March 2026, 18:30 local time (node-cron reads schedules in local time): the next runs of "0 8-18 * * *" are an hour apart. */
const MONDAY_EVENING = new Date(2026, 2, 2, 18, 30);

beforeEach(() => {
  // Only the date: the runs' own timers and promises run for real.
  jest.useFakeTimers({
    now: MONDAY_EVENING,
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });
});
afterEach(() => jest.useRealTimers());

it('takes the longest gap of a schedule as its interval, whenever it is computed', () => {
  expect(scheduleIntervalSeconds('0 8-18 * * *')).toBe(14 * 3600); // 18:00 to 08:00
  expect(scheduleIntervalSeconds('0 9 * * 1-5')).toBe(72 * 3600); // Friday to Monday
  expect(scheduleIntervalSeconds('*/7 * * * *')).toBe(7 * 60); // :56 to :00 is shorter
  expect(scheduleIntervalSeconds('*/5 * * * *')).toBe(300);
  expect(scheduleIntervalSeconds('*/30 * * * * *')).toBe(30);
  expect(scheduleIntervalSeconds('0 0 1 * *')).toBeGreaterThanOrEqual(28 * 86_400);
});

it('keeps serving the series of a collector on business hours overnight, until its next run', async () => {
  const collector = defineCollector<'management', undefined>({
    name: 'business-hours',
    kind: 'management',
    description: 'test collector',
    defaultSchedule: '0 8-18 * * *',
    metrics: ['dataprotect_assets'],
    async collect(ctx) {
      return { samples: [{ name: 'dataprotect_assets', labels: { target: ctx.target.name, asset_type: 'VM', protection_status: 'PROTECTED' }, value: 7 }] };
    },
  });
  const config = parseConfig({ targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }] });
  const runtime = new ExporterRuntime(config, { logger: silentLogger, collectorsFor: () => [collector] });
  const clock = { t: Date.now() };
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => config.collection.staleAfter, () => clock.t);
  const served = async (): Promise<boolean> => (await renderer.render()).includes('dataprotect_assets{target="t"');
  try {
    await runtime.runOnce();
    const endedAt = runtime.store.get('t', 'business-hours')!.lastSuccessAt!;
    // Tuesday 07:00: no run was due since Monday 18:30 (the next is at 08:00)
    clock.t = endedAt + 12.5 * HOUR;
    expect(await served()).toBe(true);
    expect(runtime.store.get('t', 'business-hours')!.scheduleIntervalSeconds).toBe(14 * 3600);
  } finally {
    await runtime.stop();
  }
});

it('limits a run by its shortest gap, so that it ends before the next run is due', async () => {
  // every 5 s in the first half of each minute: gaps of 5 s, and 35 s from :25 to the next minute
  expect(scheduleGaps('0-29/5 * * * * *')).toEqual({ shortest: 5, longest: 35 });
  const collector = defineCollector<'management', undefined>({
    name: 'half-minutes',
    kind: 'management',
    description: 'test collector that answers only its time limit',
    defaultSchedule: '0-29/5 * * * * *',
    metrics: ['dataprotect_assets'],
    collect: (_ctx, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
  });
  const config = parseConfig({ targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }] });
  const runtime = new ExporterRuntime(config, { logger: silentLogger, collectorsFor: () => [collector] });
  try {
    await runtime.runOnce();
    const record = runtime.store.get('t', 'half-minutes')!;
    expect(record.lastError).toContain('time limit of 5000 ms'); // 80 % of 5 s, raised to the 5 s floor; not 80 % of 35 s
    expect(record.scheduleIntervalSeconds).toBe(35);
  } finally {
    await runtime.stop();
  }
});
