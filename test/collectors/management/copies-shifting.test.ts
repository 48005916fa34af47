/**
 * copies collector and an asset's copies listing that shifts while it is paged. The listing pages at random
 * (newest first), so a backup that completes between two pages pushes the last copy of one page onto the next:
 * the same copy is listed twice. Counted twice, it makes the count and the bytes of a location a figure the
 * asset never had (one copy's size added twice), reported as right until the next re-read.
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { copiesCollector } from '../../../src/collectors/management/copies';
import { ASSET_LIST, type AssetList } from '../../../src/collectors/management/published';
import { ManagementClient } from '../../../src/clients/management/client';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed, silentLogger, simulatorTarget } from '../../support/collect';
import { copyTruthByLocation, managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 20, assetsWithoutCopyShare: 0, copiesPerAsset: 6, activitiesPerDay: 20, auditEntries: 20 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it("counts each copy once when a backup completes while the asset's copies are paged", async () => {
  const estate = sim.estate.management;
  const now = (): number => sim.clock.now().getTime();
  const victim = estate.assets().find((a) => !a.deleted && estate.copies(a.id).filter((c) => Date.parse(c.retentionTime) > now()).length >= 5);
  if (!victim) throw new Error('the estate needs an asset with five live copies');
  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared, settings: { perAssetSeries: 'all' } });
  // only the victim is read
  const list = shared.get(ASSET_LIST.id) as AssetList;
  shared.set(ASSET_LIST.id, { ...list, assets: new Map([[victim.id, list.assets.get(victim.id)]]) });

  const before = copyTruthByLocation(estate.copies(victim.id), now());
  // two copies a page, one page at a time; a backup completes once the first page is answered
  let added = false;
  const target = simulatorTarget(sim, 'management', { pageSize: 2, maxConcurrency: 1 });
  const observer = {
    onRequest: ({ endpoint, code }: { endpoint: string; code: string }) => {
      if (added || endpoint !== '/api/v2/assets/{id}/copies' || code !== '200') return;
      added = true;
      sim.clock.advance(1000);
      estate.addCopy(victim.id, { location: 'LOCAL' });
    },
  };
  const client = new ManagementClient(target, { logger: silentLogger, observer, http: { backoffBaseMs: 5 } });
  try {
    const result = await run(copiesCollector, sim, { target, client, requests: [] }, { shared, settings: { perAssetSeries: 'all' } });
    expect(added).toBe(true);
    const after = copyTruthByLocation(estate.copies(victim.id), now());
    const got = new Map<string, [number, number]>();
    for (const sample of samplesNamed(result, 'dataprotect_asset_copies')) {
      const location = sample.labels.location as string;
      const bytes = samplesNamed(result, 'dataprotect_asset_copies_size_bytes').find((s) => s.labels.location === location);
      got.set(location, [sample.value, bytes?.value ?? -1]);
    }
    // what the asset had before the backup, or after it: never a mix of both with a copy counted twice
    expect([before, after]).toContainEqual(got);
  } finally {
    await client.close();
  }
});
