/**
 * The assets collector while GET /api/v2/latest-copies fails. docs/runbook.md leaves latest-copies out of the
 * protection collectors because "when it fails, assets keeps its last answer, so copies only look older and the
 * RPO alerts err towards firing". The assets collector asks latest-copies itself, for the assets without
 * lastAvailableCopyTime, once its own answer is 30 minutes old: that request failing must not fail the asset
 * list with it (every asset series, and with them all the protection alerts, gone after staleAfter).
 */
import { assetsCollector, type AssetsState } from '../../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
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
