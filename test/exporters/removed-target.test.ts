/**
 * docs/operations.md#reload: a removed target's series and request metrics disappear from the next scrape. The target's logout runs
 * in the background after the reload; its request is not counted, or its series would come back for good.
 */
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';

const SIZE = { assets: 5, copiesPerAsset: 1, activitiesPerDay: 10, auditEntries: 10, replicatedVms: 0, storageSystems: 1 };

let sim: RunningSimulator;
beforeAll(async () => (sim = await startSimulator({ seed: 3, size: SIZE })));
afterAll(async () => sim.close());

it("a removed target's requests, its logout after the reload included, leave no series behind; a target added again counts again", async () => {
  const target = (name: string) => ({ name, kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password });
  const exporter = new Exporter(parseConfig({ targets: [target('old'), target('keep')] }), silentLogger, { processMetrics: false, inThread: true });
  try {
    await exporter.runtime.runOnce();
    expect(await exporter.renderer.render()).toContain('dataprotect_api_requests_total{target="old"');
    const logouts = sim.stats.count('management', '/api/v2/logout');
    await exporter.applyConfig(parseConfig({ targets: [target('keep')] }));
    while (sim.stats.count('management', '/api/v2/logout') === logouts) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the answer reaches the client, which counts it
    expect((await exporter.renderer.render()).split('\n').filter((line) => line.includes('target="old"'))).toEqual([]);

    await exporter.applyConfig(parseConfig({ targets: [target('old'), target('keep')] }));
    await exporter.runtime.runOnce();
    expect(await exporter.renderer.render()).toContain('dataprotect_api_requests_total{target="old"');
  } finally {
    await exporter.stop();
  }
});
