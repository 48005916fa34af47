/**
 * api-notes: "Which fields a record must have: ... a copy, a cloud DR session: none". A cloud DR session the service lists
 * without an id is still a session: it counts under its type and status, it is not skipped as unreadable.
 */
import { countingRequests, type RunCount } from '../../../src/clients/run-requests';
import { cloudDrSessionsCollector } from '../../../src/collectors/management/cloud-dr-sessions';
import type { RunningSimulator } from '../../../simulator';
import { valueOf } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 400 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it('counts a cloud DR session that has no id (the model requires no field), once', async () => {
  const sessions = sim.estate.management.cloudDrSessions();
  const first = sessions[0] as { drType?: string; status?: string };
  const labels = { dr_type: first.drType ?? 'unknown', status: first.status ?? 'unknown' };
  const truth = sessions.filter((s) => (s.drType ?? 'unknown') === labels.dr_type && (s.status ?? 'unknown') === labels.status).length;
  const before = await run(cloudDrSessionsCollector, sim, h);
  expect(valueOf(before, 'dataprotect_cloud_dr_sessions', labels)).toBe(truth);

  sim.faults.add({ api: 'management', path: '/api/v2/cloud-dr-sessions', fault: { kind: 'item', index: 0, field: 'id', value: null } });
  const count: RunCount = { requests: 0, answers: 0, skipped: [] };
  const result = await countingRequests(count, () => run(cloudDrSessionsCollector, sim, h));
  expect(count.skipped).toEqual([]);
  expect(valueOf(result, 'dataprotect_cloud_dr_sessions', labels)).toBe(truth);
  expect(result.items).toBe(sessions.length);
});
