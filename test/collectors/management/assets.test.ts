/**
 * assets and latest-copies collectors against a 3000-asset simulated estate:
 * every value equals the simulator's truth, lagging lastAvailableCopyTime
 * included.
 */
import { assetsCollector, type AssetsState } from '../../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
import { ASSET_LIST, LATEST_COPY_TIMES, type AssetList } from '../../../src/collectors/management/published';
import type { CollectResult, Sample } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import type { Asset } from '../../../simulator/management';
import { samplesNamed, valueOf } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 3000, activitiesPerDay: 50, auditEntries: 50 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.stats.reset();
  h = managementHarness(sim);
});
afterEach(() => h.client.close());

const live = (): Asset[] => sim.estate.management.assets().filter((a) => !a.deleted);

/** the newest copy the service has for the asset: lastAvailableCopyTime or its newest copy, whichever is later */
function truthNewest(asset: Asset): number | undefined {
  const times = [asset.lastAvailableCopyTime, sim.estate.management.latestCopy(asset.id)?.createTime]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => Date.parse(t) / 1000);
  return times.length > 0 ? Math.max(...times) : undefined;
}

function byAsset(result: CollectResult<unknown>, name: string): Map<string, Sample> {
  return new Map(samplesNamed(result, name).map((s) => [s.labels.asset_id as string, s]));
}

function counts(result: CollectResult<unknown>, name: string): Map<string, number> {
  return new Map(samplesNamed(result, name).map((s) => [`${s.labels.asset_type}/${s.labels.protection_status}`, s.value]));
}

function truthCounts(withoutCopyOnly: boolean): Map<string, number> {
  const out = new Map<string, number>();
  for (const asset of live()) {
    const key = `${asset.type}/${asset.protectionStatus}`;
    if (!out.has(key)) out.set(key, 0);
    if (!withoutCopyOnly || truthNewest(asset) === undefined) out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

describe('assets collector', () => {
  it('emits one info series per non-deleted asset, with size, RPO and counts equal to the truth', async () => {
    const assets = live();
    const shortRpoPolicy = assets.find((a) => a.protectionStatus === 'PROTECTED')?._embedded.protectionPolicy?.name as string;
    const settings = { rpoByPolicy: { [shortRpoPolicy]: 3_600_000 }, defaultRpo: 86_400_000 };
    const result = await run(assetsCollector, sim, h, { settings });
    expect(assets.length).toBeLessThan(sim.estate.management.assets().length); // the estate has deleted assets
    const info = byAsset(result, 'dataprotect_asset_info');
    const size = byAsset(result, 'dataprotect_asset_size_bytes');
    const rpo = byAsset(result, 'dataprotect_asset_rpo_seconds');
    expect(info.size).toBe(assets.length);
    expect(samplesNamed(result, 'dataprotect_asset_info')).toHaveLength(assets.length);

    for (const asset of assets) {
      const policy = asset._embedded.protectionPolicy?.name ?? '';
      const labels = { target: h.target.name, asset_id: asset.id, asset_name: asset.name, asset_type: asset.type, policy };
      expect(info.get(asset.id)).toEqual({ name: 'dataprotect_asset_info', labels: { ...labels, protection_status: asset.protectionStatus }, value: 1 });
      expect(size.get(asset.id)).toEqual({ name: 'dataprotect_asset_size_bytes', labels, value: asset.size });
      // the configured policy's, else its schedule's (policy-rpo-sim.test.ts covers every source)
      const expectedRpoMs = sim.estate.management.assetRpoMs(asset.id, { rpoByPolicy: settings.rpoByPolicy, defaultRpoMs: settings.defaultRpo });
      expect(rpo.get(asset.id)?.value).toBe(expectedRpoMs === undefined ? undefined : expectedRpoMs / 1000);
    }
    expect([...rpo.values()].filter((s) => s.value === 3600).length).toBeGreaterThan(0);
    expect([...rpo.values()].filter((s) => s.value !== 3600).length).toBeGreaterThan(0);
    expect(counts(result, 'dataprotect_assets')).toEqual(truthCounts(false));
    // even the first run, before latest-copies ran, knows which assets have no copy at all
    expect(counts(result, 'dataprotect_assets_without_copy')).toEqual(truthCounts(true));
    expect([...truthCounts(true).values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // and says which, with the asset's labels
    const withoutCopy = byAsset(result, 'dataprotect_asset_without_copy');
    expect(new Set(withoutCopy.keys())).toEqual(new Set(assets.filter((a) => truthNewest(a) === undefined).map((a) => a.id)));
    for (const sample of withoutCopy.values()) expect(sample).toEqual({ ...(size.get(sample.labels.asset_id as string) as Sample), name: sample.name, value: 1 });
  });

  it('reports the newest copy even where lastAvailableCopyTime lags (null or older), once latest-copies ran', async () => {
    const lagging = live().filter((a) => {
      const newest = sim.estate.management.latestCopy(a.id);
      return newest && (a.lastAvailableCopyTime === null || Date.parse(a.lastAvailableCopyTime) < Date.parse(newest.createTime));
    });
    expect(lagging.some((a) => a.lastAvailableCopyTime === null)).toBe(true);
    expect(lagging.some((a) => a.lastAvailableCopyTime !== null)).toBe(true);

    const shared = new Map<string, unknown>();
    const first = await run(assetsCollector, sim, h, { shared });
    // first run: the null ones are already right (asked latest-copies itself, in batches)
    const firstTimes = byAsset(first, 'dataprotect_asset_last_copy_timestamp_seconds');
    for (const asset of lagging.filter((a) => a.lastAvailableCopyTime === null)) {
      expect(firstTimes.get(asset.id)?.value).toBe(truthNewest(asset));
    }
    const nullCount = live().filter((a) => a.lastAvailableCopyTime === null).length;
    expect(sim.stats.count('management', '/api/v2/latest-copies')).toBe(Math.ceil(nullCount / 100));

    const latest = await run(latestCopiesCollector, sim, h, { shared });
    expect(latest.samples).toEqual([
      { name: 'dataprotect_assets_copy_time_lagging', labels: { target: h.target.name }, value: lagging.length },
    ]);
    expect((shared.get(LATEST_COPY_TIMES.id) as { newest: Map<string, number | null> }).newest.size).toBe(live().length);
    sim.stats.reset();
    const second = await run(assetsCollector, sim, h, { shared, state: first.state as AssetsState });
    expect(sim.stats.count('management', '/api/v2/latest-copies')).toBe(0); // now known from the latest-copies collector
    const secondTimes = byAsset(second, 'dataprotect_asset_last_copy_timestamp_seconds');
    for (const asset of live()) expect(secondTimes.get(asset.id)?.value).toBe(truthNewest(asset));
    expect(secondTimes.size).toBe(live().filter((a) => truthNewest(a) !== undefined).length);
    const list = shared.get(ASSET_LIST.id) as AssetList;
    expect(list.assets.size).toBe(live().length);
  });

  it('counts an asset whose latest-copies item is unreadable neither as without copy nor with a made-up time', async () => {
    // the first item of every latest-copies answer fails its checks
    sim.faults.add({ api: 'management', path: '/api/v2/latest-copies', fault: { kind: 'item', index: 0, field: 'createTime', value: 17 } });
    const result = await run(assetsCollector, sim, h);
    const times = byAsset(result, 'dataprotect_asset_last_copy_timestamp_seconds');
    const unknown = live().filter((a) => a.lastAvailableCopyTime === null && truthNewest(a) !== undefined && !times.has(a.id));
    expect(unknown.length).toBe(Math.ceil(live().filter((a) => a.lastAvailableCopyTime === null).length / 100));
    expect(counts(result, 'dataprotect_assets_without_copy')).toEqual(truthCounts(true));
    // per asset too: the unknown ones have neither a time nor a without-copy series
    const withoutCopy = byAsset(result, 'dataprotect_asset_without_copy');
    expect(new Set(withoutCopy.keys())).toEqual(new Set(live().filter((a) => truthNewest(a) === undefined).map((a) => a.id)));
    for (const asset of unknown) expect(withoutCopy.has(asset.id)).toBe(false);
    // the others asked were read (a first run takes lastAvailableCopyTime as it is where there is one)
    const asked = live().filter((a) => a.lastAvailableCopyTime === null && times.has(a.id));
    for (const asset of asked) expect(times.get(asset.id)?.value).toBe(truthNewest(asset));
    expect(asked.length).toBeGreaterThan(unknown.length);
  });

  it('asks latest-copies again for assets without lastAvailableCopyTime once its own answer is old', async () => {
    const nullCount = live().filter((a) => a.lastAvailableCopyTime === null).length;
    const first = await run(assetsCollector, sim, h);
    expect(sim.stats.count('management', '/api/v2/latest-copies')).toBe(Math.ceil(nullCount / 100));
    sim.stats.reset();
    const second = await run(assetsCollector, sim, h, { state: first.state as AssetsState });
    expect(sim.stats.count('management', '/api/v2/latest-copies')).toBe(0);
    sim.clock.advance(31 * 60_000);
    sim.stats.reset();
    await run(assetsCollector, sim, h, { state: second.state as AssetsState });
    const nullNow = live().filter((a) => a.lastAvailableCopyTime === null).length;
    expect(sim.stats.count('management', '/api/v2/latest-copies')).toBe(Math.ceil(nullNow / 100));
  });

  it('limits per-asset series with perAssetSeries, never the counts', async () => {
    const protectedOnly = await run(assetsCollector, sim, h, { settings: { perAssetSeries: 'protected' } });
    const protectedAssets = live().filter((a) => a.protectionStatus === 'PROTECTED');
    expect(samplesNamed(protectedOnly, 'dataprotect_asset_info')).toHaveLength(protectedAssets.length);
    expect(samplesNamed(protectedOnly, 'dataprotect_asset_info').every((s) => s.labels.protection_status === 'PROTECTED')).toBe(true);
    expect(counts(protectedOnly, 'dataprotect_assets')).toEqual(truthCounts(false));

    const none = await run(assetsCollector, sim, h, { settings: { perAssetSeries: 'none' } });
    expect(none.samples.every((s) => s.name === 'dataprotect_assets' || s.name === 'dataprotect_assets_without_copy')).toBe(true);
    expect(counts(none, 'dataprotect_assets_without_copy')).toEqual(truthCounts(true));
  });

  it('carries awkward names into labels unchanged and follows asset changes', async () => {
    const added = sim.estate.management.addAsset({ name: 'new "quoted" \\ asset ✓', type: 'SOMETHING_NEW', policyId: null });
    const removed = live()[5] as Asset;
    sim.estate.management.setAssetDeleted(removed.id, true);
    try {
      const result = await run(assetsCollector, sim, h);
      expect(valueOf(result, 'dataprotect_asset_info', { asset_id: added.id })).toBe(1);
      const info = samplesNamed(result, 'dataprotect_asset_info').find((s) => s.labels.asset_id === added.id);
      expect(info?.labels).toMatchObject({ asset_name: 'new "quoted" \\ asset ✓', asset_type: 'SOMETHING_NEW', policy: '', protection_status: 'UNPROTECTED' });
      expect(valueOf(result, 'dataprotect_assets_without_copy', { asset_type: 'SOMETHING_NEW', protection_status: 'UNPROTECTED' })).toBe(1);
      expect(valueOf(result, 'dataprotect_asset_info', { asset_id: removed.id })).toBeUndefined();
    } finally {
      sim.estate.management.setAssetDeleted(removed.id, false);
      sim.estate.management.removeAsset(added.id);
    }
  });

  it('fails cleanly on a 500 in the middle of paging, leaving the previous state untouched', async () => {
    const shared = new Map<string, unknown>();
    const good = await run(assetsCollector, sim, h, { shared });
    const before = structuredClone(good.state);
    const publishedBefore = shared.get(ASSET_LIST.id);
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, skip: 1, times: 1, fault: { kind: 'status', status: 500 } });
    await expect(run(assetsCollector, sim, h, { shared, state: good.state as AssetsState })).rejects.toMatchObject({ kind: 'status', status: 500 });
    expect(good.state).toEqual(before);
    expect(shared.get(ASSET_LIST.id)).toBe(publishedBefore);
  });
});
