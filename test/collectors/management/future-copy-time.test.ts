/**
 * A newest-copy time later than the exporter's clock (a service clock that jumped, a corrupt record, milliseconds read as
 * seconds) is no copy that has happened: taken as the asset's newest copy, it would keep the asset "within RPO" until that
 * date, and DataProtectAssetOutOfRPO could not fire for it however old its real copies grow.
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
import type { RunningSimulator } from '../../../simulator';
import { valueOf } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 200 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it('a lastAvailableCopyTime years ahead is not the newest copy: the asset shows its real newest copy, from latest-copies', async () => {
  const management = sim.estate.management;
  const asset = management.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && management.latestCopy(a.id))!;
  const newest = Date.parse(management.latestCopy(asset.id)!.createTime) / 1000;
  const nowSeconds = sim.clock.now().getTime() / 1000;
  expect(newest).toBeLessThanOrEqual(nowSeconds);
  management.setAssetLastCopy(asset.id, new Date(sim.clock.now().getTime() + 5 * 365 * 86_400_000));

  const result = await run(assetsCollector, sim, h);
  const labels = { asset_id: asset.id };
  expect(valueOf(result, 'dataprotect_asset_last_copy_timestamp_seconds', labels)).toBe(newest);
  expect(valueOf(result, 'dataprotect_asset_without_copy', labels)).toBeUndefined();
});

it('a latest-copies copy created years ahead leaves the newest copy unknown: neither that date nor "without copy"', async () => {
  const management = sim.estate.management;
  const asset = management.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && a.lastAvailableCopyTime !== null && management.latestCopy(a.id))!;
  management.setAssetLastCopy(asset.id, null);
  management.addCopy(asset.id, { createTime: new Date(sim.clock.now().getTime() + 5 * 365 * 86_400_000) });

  const result = await run(assetsCollector, sim, h);
  const labels = { asset_id: asset.id };
  expect(valueOf(result, 'dataprotect_asset_last_copy_timestamp_seconds', labels)).toBeUndefined();
  expect(valueOf(result, 'dataprotect_asset_without_copy', labels)).toBeUndefined();
  expect(valueOf(result, 'dataprotect_asset_info', labels)).toBe(1);
});

it('a latest-copies copy dated ahead leaves the newest copy unknown also where lastAvailableCopyTime lags behind it', async () => {
  const management = sim.estate.management;
  const asset = management.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && a.lastAvailableCopyTime !== null)!;
  // the index lags a day (pinned), and the newest copy is dated an hour ahead of the exporter's clock
  const lagging = sim.clock.now().getTime() - 86_400_000;
  management.setAssetLastCopy(asset.id, new Date(lagging));
  management.addCopy(asset.id, { createTime: new Date(sim.clock.now().getTime() + 3_600_000) });

  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared });
  await run(latestCopiesCollector, sim, h, { shared });
  const result = await run(assetsCollector, sim, h, { shared });
  const labels = { asset_id: asset.id };
  // not the lagging day-old time, which would read as out of RPO
  expect(valueOf(result, 'dataprotect_asset_last_copy_timestamp_seconds', labels)).toBeUndefined();
  expect(valueOf(result, 'dataprotect_asset_without_copy', labels)).toBeUndefined();
});
