/**
 * A reload that changes only collectors' settings keeps the running jobs and
 * moves them to their new schedules: nothing runs early (no new first round,
 * no request to the source), a collector enabled runs at once.
 */
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 4, size: { replicatedVms: 4, replicationClusters: 1 } });
});

afterAll(async () => {
  await sim.close();
});

/** Schedules that do not fire while the test runs (1 January). */
const config = (collectors: Record<string, unknown>) =>
  parseConfig({
    targets: [{ name: 't', kind: 'replication', url: sim.urls.replication, username: sim.username, password: sim.password, collectors }],
  });

const runsOf = (runtime: ExporterRuntime): Record<string, number> =>
  Object.fromEntries(runtime.store.all().map((record) => [record.collector, record.runs]));

/** Lets whatever a reload started reach the collectors and the simulator: the next turn of the event loop, then a round trip to the simulator. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await fetch(`${sim.urls.replication}/api/v1/nothing-here`).then((response) => response.arrayBuffer());
}

describe('reload of schedules only', () => {
  it('runs nothing early; a collector enabled runs at once, once', async () => {
    const yearly = { clusters: { schedule: '0 0 1 1 *' }, groups: { schedule: '0 0 1 1 *' }, vms: { enabled: false } };
    const runtime = new ExporterRuntime(config(yearly), { logger: silentLogger });
    runtime.start();
    try {
      while (!runtime.firstRoundComplete()) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(runsOf(runtime)).toEqual({ clusters: 1, groups: 1 });
      await settle();
      const requests = sim.stats.total('replication');

      const moved = { ...yearly, clusters: { schedule: '0 0 2 1 *' }, groups: { schedule: '0 0 1 1 *', timeout: '20s' } };
      expect(await runtime.applyConfig(config(moved))).toEqual({ added: [], removed: [], restarted: [], rescheduled: ['t'] });
      await settle();
      expect(runsOf(runtime)).toEqual({ clusters: 1, groups: 1 });
      expect(sim.stats.total('replication')).toBe(requests + 1); // settle's own request only
      expect(runtime.store.get('t', 'clusters')?.scheduleIntervalSeconds).toBeGreaterThan(60);

      await runtime.applyConfig(config({ ...moved, vms: { schedule: '0 0 1 1 *' } }));
      while (runtime.store.get('t', 'vms')?.lastRunEndAt === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(runsOf(runtime)).toEqual({ clusters: 1, groups: 1, vms: 1 });
      expect(runtime.store.get('t', 'vms')?.lastRunSucceeded).toBe(true);
    } finally {
      await runtime.stop();
    }
  });
});
