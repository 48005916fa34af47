/**
 * copies collector and the copy-metrics fingerprint: a fingerprint published
 * after an asset's copies were read must not be adopted as if it described
 * that read. Otherwise a change made in between (copies added to an asset
 * whose lastAvailableCopyTime lags, copies tiered to the cloud) stays hidden
 * until the periodic full re-read, up to copiesFullRescanPeriod later.
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { copiesCollector, type CopiesState } from '../../../src/collectors/management/copies';
import { copyMetricsCollector } from '../../../src/collectors/management/copy-metrics';
import type { RunningSimulator } from '../../../simulator';
import { valueOf } from '../../support/collect';
import { managementHarness, perAssetCopyRequests, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 20, assetsWithoutCopyShare: 0 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const localCopies = (assetId: string): number =>
  sim.estate.management.copies(assetId).filter((c) => c.location === 'LOCAL' && Date.parse(c.retentionTime) > sim.clock.now().getTime()).length;

it('re-reads an asset whose copies changed while copy-metrics was failing, once copy-metrics publishes again', async () => {
  const estate = sim.estate.management;
  const asset = estate.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && localCopies(a.id) > 0);
  if (!asset) throw new Error('the estate has no protected asset with local copies');
  // lastAvailableCopyTime lags: copies added from now on move neither it nor updatedAt
  estate.setAssetLastCopy(asset.id, new Date(Date.parse(asset.lastAvailableCopyTime as string)));

  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared });
  sim.faults.add({ api: 'management', path: '/api/v2/copy-metrics', fault: { kind: 'status', status: 500 } });
  await expect(run(copyMetricsCollector, sim, h, { shared })).rejects.toMatchObject({ status: 500 });
  let result = await run(copiesCollector, sim, h, { shared }); // read without any fingerprint
  let state: CopiesState | undefined = result.state;
  const before = localCopies(asset.id);
  expect(valueOf(result, 'dataprotect_asset_copies', { asset_id: asset.id, location: 'LOCAL' })).toBe(before);

  sim.clock.advance(60_000);
  const listed = (): unknown[] => [estate.asset(asset.id)?.lastAvailableCopyTime, estate.asset(asset.id)?.updatedAt];
  const listedBefore = listed();
  estate.addCopy(asset.id, { location: 'LOCAL' });
  expect(listed()).toEqual(listedBefore); // only copy-metrics can show this copy

  sim.faults.clear();
  await run(assetsCollector, sim, h, { shared });
  await run(copyMetricsCollector, sim, h, { shared });
  sim.stats.reset();
  result = await run(copiesCollector, sim, h, { shared, ...(state ? { state } : {}) });
  state = result.state;
  expect(valueOf(result, 'dataprotect_asset_copies', { asset_id: asset.id, location: 'LOCAL' })).toBe(before + 1);
  // the re-read is a one-off: the next run without changes reads nothing
  expect(perAssetCopyRequests(sim)).toBeGreaterThan(0);
  sim.stats.reset();
  await run(assetsCollector, sim, h, { shared });
  await run(copyMetricsCollector, sim, h, { shared });
  sim.stats.reset();
  result = await run(copiesCollector, sim, h, { shared, ...(state ? { state } : {}) });
  expect(perAssetCopyRequests(sim)).toBe(0);
  expect(valueOf(result, 'dataprotect_asset_copies', { asset_id: asset.id, location: 'LOCAL' })).toBe(before + 1);
});
