/**
 * The asset list the assets collector publishes steers latest-copies,
 * copy-metrics and copies; once it is older than staleAfter (the assets
 * collector keeps failing), they read the list themselves.
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
import type { RunningSimulator } from '../../../simulator';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 120 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const assetListings = (): number => sim.stats.count('management', /^\/api\/v2\/assets$/);

it('uses the published asset list while it is fresh, and reads the service once it is older than staleAfter', async () => {
  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared });
  sim.stats.reset();
  await run(latestCopiesCollector, sim, h, { shared, settings: { staleAfter: 15 * 60_000 } });
  expect(assetListings()).toBe(0);

  sim.clock.advance(16 * 60_000); // the assets collector has not succeeded since
  const added = sim.estate.management.addAsset();
  sim.stats.reset();
  const result = await run(latestCopiesCollector, sim, h, { shared, settings: { staleAfter: 15 * 60_000 } });
  expect(assetListings()).toBeGreaterThan(0);
  expect(result.items).toBe(sim.estate.management.assets().filter((a) => !a.deleted).length);
  expect(sim.estate.management.assets().some((a) => a.id === added.id)).toBe(true);
});
