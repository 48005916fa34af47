/**
 * latest-copies naming a copy in a deletion state as an asset's newest (a service that does not apply the
 * `not state in (...)` term, the case the client's own isLiveCopy check is there for). The asset's newest live
 * copy is then unknown: it may well have older live copies. It must not be reported as known to have no copy,
 * which DataProtectAssetWithoutCopy pages on and the within-RPO rule counts as out of RPO.
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
import { LATEST_COPY_TIMES, type LatestCopyTimes } from '../../../src/collectors/management/published';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 40, assetsWithoutCopyShare: 0, activitiesPerDay: 20, auditEntries: 20 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it('an asset whose newest copy latest-copies names is in a deletion state is not reported as without copy', async () => {
  const estate = sim.estate.management;
  const victim = estate.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && estate.copies(a.id).length >= 2);
  if (!victim) throw new Error('the estate needs a protected asset with two live copies');
  // the service's index gives no copy time: latest-copies decides
  estate.setAssetLastCopy(victim.id, null);
  const newest = estate.latestCopy(victim.id) as { id: string };
  sim.faults.add({ api: 'management', path: '/api/v2/latest-copies', fault: { kind: 'item', id: newest.id, field: 'state', value: 'DELETED' } });

  const shared = new Map<string, unknown>();
  const result = await run(assetsCollector, sim, h, { shared, settings: { perAssetSeries: 'all' } });
  const without = samplesNamed(result, 'dataprotect_asset_without_copy').filter((s) => s.labels.asset_id === victim.id);
  expect(without).toEqual([]);
  // nor a made-up time
  expect(samplesNamed(result, 'dataprotect_asset_last_copy_timestamp_seconds').filter((s) => s.labels.asset_id === victim.id)).toEqual([]);
  const counted = samplesNamed(result, 'dataprotect_assets_without_copy').reduce((sum, s) => sum + s.value, 0);
  const truth = estate.assets().filter((a) => !a.deleted && a.lastAvailableCopyTime == null && !estate.latestCopy(a.id)).length;
  expect(counted).toBe(truth);

  // the latest-copies collector publishes it as unknown too, not as "no copy"
  await run(latestCopiesCollector, sim, h, { shared });
  expect((shared.get(LATEST_COPY_TIMES.id) as LatestCopyTimes).newest.has(victim.id)).toBe(false);
});
