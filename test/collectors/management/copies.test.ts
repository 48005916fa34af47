/**
 * copies and copy-metrics collectors: per-location counts and bytes equal the
 * simulator's truth, and the copies collector is incremental (re-reads only
 * assets that changed; none when nothing changed; expired copies dropped
 * locally; the periodic full re-read).
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { copiesCollector, type CopiesState } from '../../../src/collectors/management/copies';
import { copyMetricsCollector } from '../../../src/collectors/management/copy-metrics';
import type { CollectResult, Sample } from '../../../src/collectors/types';
import type { ExporterConfig } from '../../../src/config/load';
import type { RunningSimulator } from '../../../simulator';
import type { Asset } from '../../../simulator/management';
import { samplesNamed } from '../../support/collect';
import { copyTruthByLocation, managementHarness, perAssetCopyRequests, run, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;

/** one collection round of the three collectors involved, as the scheduler would run them */
async function round(
  sim: RunningSimulator,
  h: Harness,
  shared: Map<string, unknown>,
  state: CopiesState | undefined,
  settings: Partial<ExporterConfig['collection']> = {},
): Promise<CollectResult<CopiesState>> {
  await run(assetsCollector, sim, h, { shared, settings });
  await run(copyMetricsCollector, sim, h, { shared, settings });
  sim.stats.reset();
  return run(copiesCollector, sim, h, { shared, settings, ...(state ? { state } : {}) });
}

const live = (sim: RunningSimulator): Asset[] => sim.estate.management.assets().filter((a) => !a.deleted);

/** the truth: asset/location -> [count, bytes] of the copies whose retention has not passed (bytes -1: a copy gives no size) */
function truthCopies(sim: RunningSimulator): Map<string, [number, number]> {
  const now = sim.clock.now().getTime();
  const out = new Map<string, [number, number]>();
  for (const asset of live(sim)) {
    for (const [location, entry] of copyTruthByLocation(sim.estate.management.copies(asset.id), now)) out.set(`${asset.id}/${location}`, entry);
  }
  return out;
}

function emitted(result: CollectResult<unknown>): Map<string, [number, number]> {
  const bytes = new Map(samplesNamed(result, 'dataprotect_asset_copies_size_bytes').map((s) => [`${s.labels.asset_id}/${s.labels.location}`, s.value]));
  return new Map(samplesNamed(result, 'dataprotect_asset_copies').map((s: Sample) => [`${s.labels.asset_id}/${s.labels.location}`, [s.value, bytes.get(`${s.labels.asset_id}/${s.labels.location}`) ?? -1]]));
}

/** what makes an asset's copies worth re-reading: its list fields and its copy metrics */
function changeMarkers(sim: RunningSimulator): Map<string, string> {
  return new Map(
    live(sim).map((a) => [a.id, JSON.stringify([a.lastAvailableCopyTime, a.updatedAt, sim.estate.management.copyMetrics(a.id)])]),
  );
}

function changedBetween(before: Map<string, string>, after: Map<string, string>): number {
  let changed = 0;
  for (const [id, marker] of after) if (before.get(id) !== marker) changed += 1;
  return changed;
}

describe('copies collector on a 2000-asset estate', () => {
  let sim: RunningSimulator;
  let h: Harness;
  const shared = new Map<string, unknown>();
  let state: CopiesState | undefined;

  beforeAll(async () => {
    sim = await startManagementSimulator({ assets: 2000, activitiesPerDay: 50, auditEntries: 50 });
    h = managementHarness(sim, { maxConcurrency: 8 });
  });
  afterAll(async () => {
    await h.client.close();
    await sim.close();
  });

  it('cold: per-location counts and bytes equal the truth; one copies listing per asset', async () => {
    const result = await round(sim, h, shared, undefined);
    expect(emitted(result)).toEqual(truthCopies(sim));
    expect(perAssetCopyRequests(sim)).toBe(live(sim).length);
    const locations = new Set(samplesNamed(result, 'dataprotect_asset_copies').map((s) => s.labels.location));
    expect(locations.size).toBeGreaterThan(1);
    state = result.state;
  });

  it('copy-metrics: newest copy per asset and stage type equals the truth', async () => {
    const result = await run(copyMetricsCollector, sim, h, { shared });
    const expected = new Map<string, number>();
    for (const asset of live(sim)) {
      for (const stage of sim.estate.management.copyMetrics(asset.id)?.stageCopyMetrics ?? []) {
        const key = `${asset.id}/${stage.stageType}`;
        expected.set(key, Math.max(expected.get(key) ?? 0, Date.parse(stage.latestCopyTime) / 1000));
      }
    }
    const got = new Map(samplesNamed(result, 'dataprotect_asset_stage_latest_copy_timestamp_seconds').map((s) => [`${s.labels.asset_id}/${s.labels.stage_type}`, s.value]));
    expect(got).toEqual(expected);
    expect(new Set([...got.keys()].map((k) => k.split('/')[1])).size).toBeGreaterThan(1);
  });

  it('a run without changes makes no per-asset request', async () => {
    const result = await round(sim, h, shared, state);
    expect(perAssetCopyRequests(sim)).toBe(0);
    expect(emitted(result)).toEqual(truthCopies(sim));
    state = result.state;
  });

  it('as the clock moves, re-reads exactly the assets that changed and stays equal to the truth', async () => {
    for (const advance of [1000, 20 * MIN, 2 * 60 * MIN]) {
      const before = changeMarkers(sim);
      sim.clock.advance(advance);
      const expectedReads = changedBetween(before, changeMarkers(sim));
      const result = await round(sim, h, shared, state);
      expect(perAssetCopyRequests(sim)).toBe(expectedReads);
      expect(emitted(result)).toEqual(truthCopies(sim));
      state = result.state;
    }
    // the two-hour step did change something: the test compared real re-reads
    expect(perAssetCopyRequests(sim)).toBeGreaterThan(0);
  });

  it('drops a copy locally when its retention passes, without asking the service again', async () => {
    const asset = live(sim).find((a) => a.protectionStatus === 'PROTECTED' && sim.estate.management.copies(a.id).length > 0) as Asset;
    const now = sim.clock.now().getTime();
    const copy = sim.estate.management.addCopy(asset.id, { createTime: new Date(now), retentionTime: new Date(now + 5 * MIN), location: 'LOCAL', size: 12345 });
    let result = await round(sim, h, shared, state);
    const key = `${asset.id}/LOCAL`;
    const withCopy = emitted(result).get(key) as [number, number];
    expect(emitted(result)).toEqual(truthCopies(sim));
    state = result.state;

    sim.clock.advance(6 * MIN);
    expect(sim.estate.management.copies(asset.id).some((c) => c.id === copy.id)).toBe(true); // the service still lists it
    result = await round(sim, h, shared, state);
    expect(sim.stats.count('management', `/api/v2/assets/${asset.id}/copies`)).toBe(0);
    expect(emitted(result).get(key)).toEqual(withCopy[0] === 1 ? undefined : [withCopy[0] - 1, withCopy[1] - 12345]);
    expect(emitted(result)).toEqual(truthCopies(sim));
    state = result.state;
  });
});

describe('copies collector on a small estate: full re-read, failures', () => {
  let sim: RunningSimulator;
  let h: Harness;

  beforeAll(async () => {
    sim = await startManagementSimulator({ assets: 200, activitiesPerDay: 20, auditEntries: 20 }, 5);
    h = managementHarness(sim);
  });
  afterAll(async () => {
    await h.client.close();
    await sim.close();
  });
  beforeEach(() => sim.faults.clear());

  it('spreads the full re-read over copiesFullRescanPeriod: none in its first half, all by its end', async () => {
    const settings = { copiesFullRescanPeriod: 60 * MIN };
    const shared = new Map<string, unknown>();
    const readSinceCold = new Set<string>();
    const noteReads = (): void => {
      for (const asset of live(sim)) if (sim.stats.count('management', `/api/v2/assets/${asset.id}/copies`) > 0) readSinceCold.add(asset.id);
    };
    let result = await round(sim, h, shared, undefined, settings);
    const assets = live(sim).length;
    expect(perAssetCopyRequests(sim)).toBe(assets);

    let before = changeMarkers(sim);
    sim.clock.advance(29 * MIN); // first half: only changed assets
    let changed = changedBetween(before, changeMarkers(sim));
    result = await round(sim, h, shared, result.state, settings);
    expect(perAssetCopyRequests(sim)).toBe(changed);
    noteReads();

    before = changeMarkers(sim);
    sim.clock.advance(16 * MIN); // 45 minutes: some first re-reads are due
    changed = changedBetween(before, changeMarkers(sim));
    result = await round(sim, h, shared, result.state, settings);
    const dueAtHalf = perAssetCopyRequests(sim) - changed;
    expect(dueAtHalf).toBeGreaterThan(0);
    expect(dueAtHalf).toBeLessThan(assets / 2 + 20);
    noteReads();

    sim.clock.advance(16 * MIN); // 61 minutes: every asset was re-read at least once since the cold run
    result = await round(sim, h, shared, result.state, settings);
    noteReads();
    expect(readSinceCold.size).toBe(assets);
    expect(emitted(result)).toEqual(truthCopies(sim));
  });

  it('reads copies only of the assets whose series are emitted (perAssetSeries)', async () => {
    const shared = new Map<string, unknown>();
    const protectedOnly = await round(sim, h, shared, undefined, { perAssetSeries: 'protected' });
    const protectedIds = new Set(live(sim).filter((a) => a.protectionStatus === 'PROTECTED').map((a) => a.id));
    expect(protectedIds.size).toBeLessThan(live(sim).length);
    expect(perAssetCopyRequests(sim)).toBe(protectedIds.size);
    const truth = new Map([...truthCopies(sim)].filter(([key]) => protectedIds.has(key.split('/')[0] as string)));
    expect(emitted(protectedOnly)).toEqual(truth);
    const none = await round(sim, h, shared, undefined, { perAssetSeries: 'none' });
    expect(perAssetCopyRequests(sim)).toBe(0);
    expect(none.samples).toEqual([]);
  });

  it('fails cleanly when one asset read fails, keeping the previous state; skips an asset removed meanwhile', async () => {
    const shared = new Map<string, unknown>();
    const good = await round(sim, h, shared, undefined);
    const snapshot = structuredClone(good.state);
    const victim = live(sim)[3] as Asset;
    sim.estate.management.addCopy(victim.id, {});
    await run(assetsCollector, sim, h, { shared });
    sim.faults.add({ api: 'management', path: `/api/v2/assets/${victim.id}/copies`, fault: { kind: 'status', status: 500 } });
    await expect(run(copiesCollector, sim, h, { shared, state: good.state as CopiesState })).rejects.toMatchObject({ kind: 'status', status: 500 });
    expect(good.state).toEqual(snapshot);

    sim.faults.clear();
    sim.estate.management.removeAsset(victim.id); // gone after the asset list was read: its copies answer 404
    const result = await run(copiesCollector, sim, h, { shared, state: good.state as CopiesState });
    expect(samplesNamed(result, 'dataprotect_asset_copies').some((s) => s.labels.asset_id === victim.id)).toBe(false);
    expect(result.state?.assets.has(victim.id)).toBe(false);
  });
});
