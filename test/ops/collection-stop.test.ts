/**
 * The collection thread's stop is bounded by its budget; ended at the budget (a logout that hangs), the thread's logouts, last events
 * and spans are lost, and the stop says so: the daemon then exits 1 with a `stop cut short` line (docs/operations.md#stop).
 */
import { parseConfig } from '../../src/config/load';
import { CollectionHost } from '../../src/collection/host';
import { COLLECTION_STOP_STEP } from '../../src/stop-deadline';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';

const SIZE = { assets: 5, copiesPerAsset: 1, activitiesPerDay: 10, auditEntries: 10, replicatedVms: 0, storageSystems: 1 };
const LOGOUT = /^\/api\/v2\/logout$/;
const observer = { onRequest: () => undefined, onOtlpDropped: () => undefined, recordFirstRound: () => undefined, onCollectionRestart: () => undefined };

let sim: RunningSimulator;
beforeAll(async () => (sim = await startSimulator({ seed: 5, size: SIZE })));
afterAll(async () => sim.close());
afterEach(() => sim.faults.clear());

async function stoppedHost(budgetMs: number): Promise<string[]> {
  const target = { name: 'm', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password };
  const host = new CollectionHost(parseConfig({ targets: [target] }), { logger: silentLogger, observer });
  host.start();
  while (!host.firstRoundComplete()) await new Promise((resolve) => setTimeout(resolve, 20));
  return host.stop(budgetMs);
}

it('a stop its budget ended names the collection thread among what it cut short', async () => {
  sim.faults.add({ api: 'management', path: LOGOUT, fault: { kind: 'hang' } });
  const logouts = sim.stats.count('management', LOGOUT);
  expect(await stoppedHost(1_000)).toEqual([COLLECTION_STOP_STEP]);
  expect(sim.stats.count('management', LOGOUT)).toBe(logouts + 1); // it was waiting on the logout
});

it('a stop within its budget cuts nothing short', async () => {
  expect(await stoppedHost(20_000)).toEqual([]);
}, 30_000);
