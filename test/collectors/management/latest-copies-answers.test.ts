/**
 * What the assets collector makes of latest-copies' answers when they are not plain:
 * - a copy in a deletion state named as an asset's newest (a service that does not apply the `not state in (...)` term, the case
 *   the client's own isLiveCopy check is there for): the asset's newest live copy is unknown, as it may well have older live
 *   copies. It must not be reported as known to have no copy, which DataProtectAssetWithoutCopy pages on and the within-RPO
 *   rule counts as out of RPO;
 * - latest-copies failing. docs/runbook.md leaves latest-copies out of the protection collectors because "when it fails, assets
 *   keeps its last answer, so copies only look older and the RPO alerts err towards firing". The assets collector asks
 *   latest-copies itself, for the assets without lastAvailableCopyTime, once its own answer is 30 minutes old: that request
 *   failing must not fail the asset list with it (every asset series, and with them all the protection alerts, gone after
 *   staleAfter).
 * Each test has a simulator of its own: both change its answers.
 */
import { assetsCollector, type AssetsState } from '../../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
import { LATEST_COPY_TIMES, type LatestCopyTimes } from '../../../src/collectors/management/published';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeEach(async () => {
  sim = await startManagementSimulator({ assets: 40, assetsWithoutCopyShare: 0, activitiesPerDay: 20, auditEntries: 20 });
  h = managementHarness(sim);
});
afterEach(async () => {
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

it('keeps its last latest-copies answer, and its asset list, while latest-copies fails', async () => {
  const estate = sim.estate.management;
  const victim = estate.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && estate.latestCopy(a.id) !== undefined);
  if (!victim) throw new Error('the estate needs a protected asset with a copy');
  estate.setAssetLastCopy(victim.id, null); // the service's index gives no copy time: latest-copies tells
  const newest = Date.parse((estate.latestCopy(victim.id) as { createTime: string }).createTime) / 1000;
  const settings = { perAssetSeries: 'all' as const };
  const shared = new Map<string, unknown>();
  const first = await run(assetsCollector, sim, h, { shared, settings });
  const lastCopy = (result: typeof first): number | undefined =>
    samplesNamed(result, 'dataprotect_asset_last_copy_timestamp_seconds').find((s) => s.labels.asset_id === victim.id)?.value;
  expect(lastCopy(first)).toBe(newest);

  // latest-copies starts failing: its collector fails and publishes nothing new
  sim.faults.add({ api: 'management', path: '/api/v2/latest-copies', fault: { kind: 'status', status: 500 } });
  await expect(run(latestCopiesCollector, sim, h, { shared })).rejects.toMatchObject({ status: 500 });

  // the assets collector's own answer is now old enough to be asked again
  sim.clock.advance(31 * 60_000);
  const later = await run(assetsCollector, sim, h, { shared, settings, state: first.state as AssetsState });
  expect(samplesNamed(later, 'dataprotect_asset_info').length).toBe(estate.assets().filter((a) => !a.deleted).length);
  expect(lastCopy(later)).toBe(newest); // the last answer, kept
  expect(samplesNamed(later, 'dataprotect_asset_without_copy').some((s) => s.labels.asset_id === victim.id)).toBe(false);
});
