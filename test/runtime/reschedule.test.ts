/**
 * A reload that only changes a collector's schedule keeps its series (docs/operations.md#reload: rescheduled collectors keep their
 * series, and nothing runs early): a success is served for the interval it was made under, when that is longer than the new one.
 */
import { parseConfig } from '../../src/config/load';
import { defineCollector } from '../../src/collectors/types';
import { ExporterRuntime } from '../../src/runtime';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { silentLogger } from '../support/collect';

it('a schedule shortened by a reload keeps the series until the next run', async () => {
  const collector = defineCollector<'management', undefined>({
    name: 'hourly',
    kind: 'management',
    description: 'an hourly collector',
    defaultSchedule: '0 * * * *',
    metrics: ['dataprotect_assets'],
    collect: async (ctx) => ({ samples: [{ name: 'dataprotect_assets', labels: { target: ctx.target.name, asset_type: 'VM', protection_status: 'PROTECTED' }, value: 7 }] }),
  });
  const base = { name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' };
  const config = parseConfig({ targets: [base] });
  const runtime = new ExporterRuntime(config, { logger: silentLogger, collectorsFor: () => [collector] });
  const clock = { t: Date.now() };
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => config.collection.staleAfter, () => clock.t);
  await runtime.runOnce();
  clock.t = runtime.store.get('t', 'hourly')!.lastSuccessAt! + 40 * 60_000;
  expect(await renderer.render()).toContain('dataprotect_assets{target="t"'); // kept until the next run, at +60 min
  await runtime.applyConfig(parseConfig({ targets: [{ ...base, collectors: { hourly: { schedule: '*/15 * * * *' } } }] }));
  const text = await renderer.render();
  await runtime.stop();
  // the collector never failed and its next run is at most 15 min away
  expect(text).toContain('dataprotect_assets{target="t"');
});
