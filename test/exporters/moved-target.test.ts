/**
 * docs/operations.md#sharding: each replica serves only its own targets. A reload that moves a target to another replica (a target
 * added beside it) stops it here: its series and its request metrics leave this replica's /metrics, as a removed target's do.
 */
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { assignShards } from '../../src/scheduler/sharding';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';

const SIZE = { assets: 5, copiesPerAsset: 1, activitiesPerDay: 10, auditEntries: 10, replicatedVms: 0, storageSystems: 1 };

let sim: RunningSimulator;
beforeAll(async () => (sim = await startSimulator({ seed: 3, size: SIZE })));
afterAll(async () => sim.close());

it("a target a reload moves to another shard leaves no request series on this one", async () => {
  // shard 0 of 2 collects alpha and delta; once beta is added, delta goes to shard 1
  expect(assignShards(['alpha', 'delta', 'eta'], 2).get('delta')).toBe(0);
  expect(assignShards(['alpha', 'beta', 'delta', 'eta'], 2).get('delta')).toBe(1);
  const target = (name: string) => ({ name, kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password });
  const config = (...names: string[]) => parseConfig({ sharding: { shards: 2, index: 0 }, targets: names.map(target) });
  const exporter = new Exporter(config('alpha', 'delta', 'eta'), silentLogger, { processMetrics: false, inThread: true });
  try {
    await exporter.runtime.runOnce();
    expect(await exporter.renderer.render()).toContain('dataprotect_api_requests_total{target="delta"');
    const logouts = sim.stats.count('management', '/api/v2/logout');
    const change = await exporter.applyConfig(config('alpha', 'beta', 'delta', 'eta'));
    expect(change.removed).toEqual(['delta']);
    while (sim.stats.count('management', '/api/v2/logout') === logouts) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the answer reaches the client, which counts it
    expect((await exporter.renderer.render()).split('\n').filter((line) => line.includes('target="delta"'))).toEqual([]);
  } finally {
    await exporter.stop();
  }
});
