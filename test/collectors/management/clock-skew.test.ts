/**
 * The counting collectors when the service's clock is behind the exporter's (NTP off on one side): the events that happen
 * after the exporter's first read are counted, once each, however far the two clocks are apart. The exporter's clock is
 * the simulator's plus the skew; the events are stamped with the simulator's.
 */
import { activitiesCollector, type ActivitiesState } from '../../../src/collectors/management/activities';
import { auditLogsCollector, type AuditLogsState } from '../../../src/collectors/management/audit-logs';
import type { CollectResult } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import { runCollector, samplesNamed } from '../../support/collect';
import { managementHarness, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
/** the service's clock is this far behind the exporter's */
const SKEW = 20 * MIN;

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 60, activitiesPerDay: 2000, auditEntries: 200, auditEntriesPerDay: 3000 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const simNow = (): number => sim.clock.now().getTime();
const exporterNow = (): Date => new Date(simNow() + SKEW);
/** a run on the exporter's clock */
function run<S>(definition: Parameters<typeof runCollector<'management', S>>[0], options: { state?: S; collectingSince: Date }): Promise<CollectResult<S>> {
  return runCollector(definition, { target: h.target, client: h.client, now: exporterNow, settings: { activityClassTypes: ['JOB'] }, ...options });
}
const total = (result: CollectResult<unknown>, name: string): number =>
  samplesNamed(result, name).reduce((sum, sample) => sum + sample.value, 0);

it('audit-logs: counts the entries that appear after the first read although they are stamped before the exporter\'s start', async () => {
  const firstReadAt = simNow();
  const collectingSince = exporterNow();
  let result = await run(auditLogsCollector, { collectingSince });
  let state: AuditLogsState | undefined = result.state;
  for (let i = 0; i < 3; i++) {
    sim.clock.advance(4 * MIN);
    result = await run(auditLogsCollector, { state, collectingSince });
    state = result.state;
  }
  const appeared = sim.estate.management.auditEntries({ since: new Date(firstReadAt + 1), until: new Date(simNow() + 1) }).length;
  expect(appeared).toBeGreaterThan(10);
  expect(total(result, 'dataprotect_audit_events_total')).toBe(appeared);
});

it('activities: counts the jobs that complete after the first read although they end before the exporter\'s start', async () => {
  const estate = sim.estate.management;
  const firstReadAt = simNow();
  const collectingSince = exporterNow();
  let result = await run(activitiesCollector, { collectingSince });
  let state: ActivitiesState | undefined = result.state;
  for (let i = 0; i < 3; i++) {
    sim.clock.advance(3 * MIN);
    // a short job between two runs: never seen running
    const t = simNow();
    estate.addActivity({ category: 'RESTORE', classType: 'JOB', createTime: new Date(t - 60_000), startTime: new Date(t - 50_000), endTime: new Date(t - 10_000) });
    result = await run(activitiesCollector, { state, collectingSince });
    state = result.state;
  }
  const completed = estate.activities().filter((a) => a.classType === 'JOB' && a.endTime !== null && Date.parse(a.endTime) > firstReadAt);
  expect(completed.filter((a) => a.category === 'RESTORE').length).toBeGreaterThanOrEqual(3);
  expect(total(result, 'dataprotect_activities_completed_total')).toBe(completed.length);
});
