/**
 * What one collector publishes for the others (ctx.shared) is seen as long
 * as its own series would be served: until staleAfter past its next run. A
 * publisher that stops succeeding (latest-copies here) then no longer
 * steers the others: the assets collector asks latest-copies itself again
 * instead of exporting newest-copy times that age without end.
 */
import { ManagementClient } from '../../src/clients/management/client';
import { assetsCollector } from '../../src/collectors/management/assets';
import { latestCopiesCollector } from '../../src/collectors/management/latest-copies';
import type { AnyCollector, SharedEntry } from '../../src/collectors/types';
import { CollectorJob } from '../../src/scheduler/job';
import { SnapshotStore } from '../../src/snapshot/store';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { defaultSettings, silentLogger, simulatorTarget } from '../support/collect';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: { assets: 300, replicatedVms: 1, storageSystems: 1 }, startTime: new Date('2026-11-18T10:00:00Z') });
});
afterAll(async () => {
  await sim.close();
});

it("a published value is seen until staleAfter past its publisher's next run, then the others read for themselves", async () => {
  const target = simulatorTarget(sim, 'management');
  const client = new ManagementClient(target, { logger: silentLogger });
  const runtime = { config: target, client, shared: new Map<string, SharedEntry>() };
  const store = new SnapshotStore();
  const job = (collector: AnyCollector, schedule: string): CollectorJob => {
    store.register(target.name, 'management', collector.name, 60);
    const deps = { store, logger: silentLogger, settings: () => defaultSettings({ staleAfter: 15 * 60_000 }), now: () => sim.clock.now() };
    return new CollectorJob(runtime, collector, { schedule, timeoutMs: 60_000 }, deps);
  };
  const latestCopies = job(latestCopiesCollector, '*/15 * * * *');
  const assets = job(assetsCollector, '*/2 * * * *');
  const askedLatestCopies = async (): Promise<number> => {
    sim.stats.reset();
    expect(await assets.run()).toBe('success');
    return sim.stats.count('management', '/api/v2/latest-copies');
  };
  const withoutCopyTime = sim.estate.management.assets().filter((a) => !a.deleted && a.lastAvailableCopyTime === null).length;
  expect(withoutCopyTime).toBeGreaterThan(0);
  try {
    expect(await latestCopies.run()).toBe('success');
    expect(await askedLatestCopies()).toBe(0); // latest-copies' answer covers every asset
    // latest-copies succeeds no more: its answer serves one schedule interval (15 min) and staleAfter (15 min) past its read
    sim.clock.advance(29 * 60_000);
    expect(await askedLatestCopies()).toBe(0);
    sim.clock.advance(2 * 60_000);
    expect(await askedLatestCopies()).toBe(Math.ceil(withoutCopyTime / 100));
  } finally {
    await client.close();
  }
});
