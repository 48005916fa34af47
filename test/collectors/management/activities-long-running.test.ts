/**
 * activities collector: jobs that have been queued or running for longer than
 * `collection.window` (a stuck job, a long initial backup) are in
 * dataprotect_activities from the first run, although their last change is
 * older than anything the first incremental read asks for; when they complete
 * they are counted once.
 */
import { activitiesCollector } from '../../../src/collectors/management/activities';
import type { RunningSimulator } from '../../../simulator';
import { valueOf } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const HOUR = 3_600_000;
let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 50, activitiesPerDay: 200, auditEntries: 10 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

/** the truth: JOB/JOB_GROUP activities of the category now in the state */
const inState = (category: string, state: string): number =>
  sim.estate.management.activities().filter((a) => a.classType !== 'TASK' && a.category === category && a.state === state).length;

it('counts in dataprotect_activities the jobs queued or running since before the window, from the first run on', async () => {
  const estate = sim.estate.management;
  const t = sim.clock.now().getTime();
  const running = estate.addActivity({ category: 'RESTORE', classType: 'JOB', createTime: new Date(t - 30 * HOUR), startTime: new Date(t - 29 * HOUR), endTime: null });
  estate.addActivity({ category: 'VALIDATE', classType: 'JOB_GROUP', createTime: new Date(t - 50 * HOUR), startTime: null, endTime: null });
  estate.addActivity({ category: 'RESTORE', classType: 'TASK', createTime: new Date(t - 30 * HOUR), startTime: new Date(t - 29 * HOUR), endTime: null });

  let result = await run(activitiesCollector, sim, h);
  expect(inState('RESTORE', 'RUNNING')).toBeGreaterThanOrEqual(1);
  expect(valueOf(result, 'dataprotect_activities', { category: 'RESTORE', state: 'RUNNING' })).toBe(inState('RESTORE', 'RUNNING'));
  expect(valueOf(result, 'dataprotect_activities', { category: 'VALIDATE', state: 'QUEUED' })).toBe(inState('VALIDATE', 'QUEUED'));
  expect(valueOf(result, 'dataprotect_activities_completed_total', { category: 'RESTORE', result: 'FAILED' }) ?? 0).toBe(0);

  // it completes: counted once, and no longer running
  sim.clock.advance(5 * 60_000);
  estate.setActivityState(running.id, 'COMPLETED', 'FAILED');
  const failedRestoresBefore = valueOf(result, 'dataprotect_activities_completed_total', { category: 'RESTORE', result: 'FAILED' }) ?? 0;
  result = await run(activitiesCollector, sim, h, { state: result.state });
  result = await run(activitiesCollector, sim, h, { state: result.state });
  expect(valueOf(result, 'dataprotect_activities', { category: 'RESTORE', state: 'RUNNING' }) ?? 0).toBe(inState('RESTORE', 'RUNNING'));
  const failedRestoresNow = sim.estate.management
    .activities({ since: new Date(t - 31 * HOUR) })
    .filter((a) => a.classType !== 'TASK' && a.category === 'RESTORE' && a.result.status === 'FAILED' && Date.parse(a.endTime as string) > t).length;
  expect(valueOf(result, 'dataprotect_activities_completed_total', { category: 'RESTORE', result: 'FAILED' })).toBe(failedRestoresBefore + failedRestoresNow);
  expect(failedRestoresNow).toBeGreaterThanOrEqual(1);
});
