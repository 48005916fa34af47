/**
 * copies collector under its time limit: a cold read of every asset's copies
 * that takes longer than the limit must still make progress. Before, each run
 * was cut off and its reads thrown away, so on a large or slow estate the
 * collector never succeeded and its series never appeared. Now it stops
 * starting reads when a quarter of the limit is left, keeps what it read and
 * reads the rest in the next runs.
 */
import { parseConfig } from '../../../src/config/load';
import { collectorsFor } from '../../../src/collectors/registry';
import { ExporterRuntime } from '../../../src/runtime';
import type { RunningSimulator } from '../../../src/simulator';
import { silentLogger } from '../../support/collect';
import { perAssetCopyRequests, startManagementSimulator } from './helpers';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 160, assetsWithoutCopyShare: 0 });
});
afterAll(async () => {
  await sim.close();
});

/** the truth: asset/location -> copies whose retention has not passed */
function truth(): Map<string, number> {
  const now = sim.clock.now().getTime();
  const out = new Map<string, number>();
  for (const asset of sim.estate.management.assets().filter((a) => !a.deleted)) {
    for (const copy of sim.estate.management.copies(asset.id)) {
      if (Date.parse(copy.retentionTime) <= now) continue;
      const key = `${asset.id}/${copy.location}`;
      out.set(key, (out.get(key) ?? 0) + 1);
    }
  }
  return out;
}

it('reads the copies of a slow estate over several runs instead of failing every run', async () => {
  // 160 assets x 40 ms / 4 connections: about 1.6 s of reads, under a 1 s limit
  sim.faults.add({ api: 'management', path: /\/copies$/, fault: { kind: 'latency', ms: 40 } });
  const config = parseConfig({
    targets: [
      { name: 'm', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password, collectors: { copies: { timeout: '1s' } } },
    ],
  });
  const runtime = new ExporterRuntime(config, {
    logger: silentLogger,
    now: () => sim.clock.now(),
    collectorsFor: (kind) => collectorsFor(kind).filter((c) => ['assets', 'copy-metrics', 'copies'].includes(c.name)),
  });
  try {
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) outcomes.push((await runtime.runOnce())[2] as string);
    expect(outcomes).toEqual(['success', 'success', 'success', 'success']);
    const emitted = new Map(
      runtime.store
        .get('m', 'copies')!
        .samples.filter((s) => s.name === 'dataprotect_asset_copies')
        .map((s) => [`${s.labels.asset_id}/${s.labels.location}`, s.value]),
    );
    expect(emitted).toEqual(truth());
    // every asset read once: no read thrown away and done again
    expect(perAssetCopyRequests(sim)).toBe(sim.estate.management.assets().filter((a) => !a.deleted).length);
  } finally {
    await runtime.stop();
    sim.faults.clear();
  }
});
