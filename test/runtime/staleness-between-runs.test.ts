/**
 * staleAfter is how long a *failing* collector's last good series are kept.
 * A collector that keeps succeeding must never lose its series between two
 * runs: not when its schedule is as long as staleAfter (latest-copies,
 * copy-metrics and compliance run every 15 minutes, the default staleAfter)
 * and a run ends a little later than the one before, nor when an operator
 * gives it a longer schedule. Its series go staleAfter after a run it missed.
 */
import { parseConfig } from '../../src/config/load';
import { defineCollector } from '../../src/collectors/types';
import { ExporterRuntime } from '../../src/runtime';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { silentLogger } from '../support/collect';

const MIN = 60_000;

function setup(schedule: string) {
  const behaviour = { fail: false };
  const collector = defineCollector<'management', undefined>({
    name: 'slow-schedule',
    kind: 'management',
    description: 'test collector',
    defaultSchedule: '0 0 1 1 *',
    metrics: ['dataprotect_assets'],
    async collect(ctx) {
      if (behaviour.fail) throw new Error('bad answer');
      return { samples: [{ name: 'dataprotect_assets', labels: { target: ctx.target.name, asset_type: 'VM', protection_status: 'PROTECTED' }, value: 7 }] };
    },
  });
  const config = parseConfig({
    targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p', collectors: { 'slow-schedule': { schedule } } }],
  });
  const runtime = new ExporterRuntime(config, { logger: silentLogger, collectorsFor: () => [collector] });
  const clock = { t: Date.now() };
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => config.collection.staleAfter, () => clock.t);
  const served = async (): Promise<boolean> => (await renderer.render()).includes('dataprotect_assets{target="t"');
  return { runtime, clock, served, behaviour };
}

it('keeps a succeeding collector on the default staleAfter\'s schedule served until its next run ends', async () => {
  const { runtime, clock, served } = setup('*/15 * * * *');
  await runtime.runOnce();
  const endedAt = runtime.store.get('t', 'slow-schedule')!.lastSuccessAt!;
  // the next run started on time at +15 min but takes 20 s longer than this one did
  clock.t = endedAt + 15 * MIN + 10_000;
  expect(await served()).toBe(true);
  await runtime.stop();
});

it('keeps the series of a collector scheduled hourly until its next run, then applies staleAfter', async () => {
  const { runtime, clock, served, behaviour } = setup('0 * * * *');
  await runtime.runOnce();
  const endedAt = runtime.store.get('t', 'slow-schedule')!.lastSuccessAt!;
  clock.t = endedAt + 40 * MIN;
  expect(await served()).toBe(true);
  // the next run does not come (a stuck job): staleAfter (15 min) past the time it was due
  clock.t = endedAt + 60 * MIN + 14 * MIN;
  expect(await served()).toBe(true);
  clock.t = endedAt + 60 * MIN + 16 * MIN;
  expect(await served()).toBe(false);
  // a run that fails: a failing collector's last good series are served staleAfter past its last success
  clock.t = endedAt + 40 * MIN;
  behaviour.fail = true;
  await runtime.runOnce();
  expect(await served()).toBe(false);
  await runtime.stop();
});
