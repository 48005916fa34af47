/**
 * copies collector under its time limit: a cold read of every asset's copies
 * that takes longer than the limit must still make progress. The collector
 * stops starting reads when a quarter of the limit is left, keeps what it read
 * and reads the rest in the next runs.
 *
 * The limit's clock here is the reads themselves: each read the simulator has
 * received uses READ_MS of a 1 s limit, so where a run stops depends on the
 * work done, not on the machine's speed.
 */
import { assetsCollector, type AssetsState } from '../../../src/collectors/management/assets';
import { copiesCollector, type CopiesState } from '../../../src/collectors/management/copies';
import { copyMetricsCollector } from '../../../src/collectors/management/copy-metrics';
import type { CollectResult } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import { managementHarness, perAssetCopyRequests, run, startManagementSimulator } from './helpers';

const LIMIT_MS = 1_000;
/** 160 assets x 10 ms: 1.6 s of reads, and a run may start reads for 750 ms of them */
const READ_MS = 10;

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
      const key = `${asset.id}/${copy.location ?? 'unknown'}`;
      out.set(key, (out.get(key) ?? 0) + 1);
    }
  }
  return out;
}

it('reads the copies of a slow estate over several runs instead of failing every run', async () => {
  const h = managementHarness(sim);
  const shared = new Map<string, unknown>();
  const assets = sim.estate.management.assets().filter((a) => !a.deleted).length;
  let assetsState: AssetsState | undefined;
  let copiesState: CopiesState | undefined;
  let copies: CollectResult<CopiesState> | undefined;
  const readsPerRun: number[] = [];
  try {
    for (let round = 0; round < 4; round++) {
      assetsState = (await run(assetsCollector, sim, h, { state: assetsState, shared })).state;
      await run(copyMetricsCollector, sim, h, { shared });
      const readsBefore = perAssetCopyRequests(sim);
      const timeLimit = { totalMs: LIMIT_MS, leftMs: () => LIMIT_MS - (perAssetCopyRequests(sim) - readsBefore) * READ_MS };
      copies = await run(copiesCollector, sim, h, { state: copiesState, shared, timeLimit }); // every run succeeds
      copiesState = copies.state;
      readsPerRun.push(perAssetCopyRequests(sim) - readsBefore);
    }
    // Each of the first two runs read part of the estate: it starts reads until less than a quarter
    // of the limit is left (past 75 reads), and the reads under way on the target's connections end.
    for (const reads of readsPerRun.slice(0, 2)) {
      expect(reads).toBeGreaterThan(75);
      expect(reads).toBeLessThanOrEqual(75 + h.target.maxConcurrency);
    }
    // ... and every asset was read once in all: no read thrown away and done again.
    expect(readsPerRun.reduce((sum, reads) => sum + reads, 0)).toBe(assets);
    const emitted = new Map(
      copies!.samples.filter((s) => s.name === 'dataprotect_asset_copies').map((s) => [`${s.labels.asset_id}/${s.labels.location}`, s.value]),
    );
    expect(emitted).toEqual(truth());
  } finally {
    await h.client.close();
  }
});
