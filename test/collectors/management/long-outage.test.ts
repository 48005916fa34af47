/**
 * After an outage (the service down, or the exporter's credentials refused over a weekend), the next run reads everything since
 * the last successful one. Scaled down here: maxListingItems 400 stands for the default 2,000,000, which a 50,000-asset estate's
 * 700,000 audit entries a day pass after under three days. Each failed run leaves the backlog larger: the collector must not
 * fail on every run from then on.
 */
import { activitiesCollector, type ActivitiesState } from '../../../src/collectors/management/activities';
import { auditLogsCollector, type AuditLogsState } from '../../../src/collectors/management/audit-logs';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
const HOUR = 60 * MIN;
let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 40, activitiesPerDay: 3000, auditEntries: 50, auditEntriesPerDay: 3000 });
  h = managementHarness(sim, { pageSize: 100, maxListingItems: 400 });
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it('audit-logs recovers after an outage whose backlog is more than maxListingItems, and counts every entry once', async () => {
  const settings = { window: HOUR };
  const firstRunAt = sim.clock.now().getTime();
  let state: AuditLogsState | undefined = (await run(auditLogsCollector, sim, h, { settings })).state;
  sim.clock.advance(5 * MIN);
  state = (await run(auditLogsCollector, sim, h, { state, settings })).state;
  sim.clock.advance(6 * HOUR); // about 750 entries: the runs of these hours failed
  let result;
  for (let i = 0; i < 8; i++) {
    result = await run(auditLogsCollector, sim, h, { state, settings });
    state = result.state;
    sim.clock.advance(MIN);
  }
  const appeared = sim.estate.management.auditEntries({ since: new Date(firstRunAt + 1), until: new Date(sim.clock.now().getTime() - MIN + 1) }).length;
  expect(appeared).toBeGreaterThan(600);
  const counted = samplesNamed(result as never, 'dataprotect_audit_events_total').reduce((sum, sample) => sum + sample.value, 0);
  expect(counted).toBe(appeared);
});

it('activities catch up the same way, counting every completion once', async () => {
  const settings = { window: HOUR, activityClassTypes: ['JOB' as const] };
  const firstRunAt = sim.clock.now().getTime();
  let state: ActivitiesState | undefined = (await run(activitiesCollector, sim, h, { settings })).state;
  sim.clock.advance(6 * HOUR);
  let result;
  for (let i = 0; i < 8; i++) {
    result = await run(activitiesCollector, sim, h, { state, settings });
    state = result.state;
  }
  const completed = sim.estate.management.activities().filter((a) => a.classType === 'JOB' && a.endTime !== null && Date.parse(a.endTime) > firstRunAt);
  expect(completed.length).toBeGreaterThan(300);
  const counted = samplesNamed(result as never, 'dataprotect_activities_completed_total').reduce((sum, sample) => sum + sample.value, 0);
  expect(counted).toBe(completed.length);
});

it('audit-logs scheduled less often than a short window keeps up: each run counts all that appeared since the last', async () => {
  const settings = { window: HOUR };
  const scheduleIntervalMs = 2 * HOUR; // every 2 h, a window of 1 h
  const firstRunAt = sim.clock.now().getTime();
  let state: AuditLogsState | undefined = (await run(auditLogsCollector, sim, h, { settings, scheduleIntervalMs })).state;
  let result;
  for (let i = 0; i < 3; i++) {
    sim.clock.advance(2 * HOUR); // about 250 entries a run, under maxListingItems
    result = await run(auditLogsCollector, sim, h, { state, settings, scheduleIntervalMs });
    state = result.state;
  }
  const appeared = sim.estate.management.auditEntries({ since: new Date(firstRunAt + 1), until: new Date(sim.clock.now().getTime() + 1) }).length;
  expect(appeared).toBeGreaterThan(600);
  const counted = samplesNamed(result as never, 'dataprotect_audit_events_total').reduce((sum, sample) => sum + sample.value, 0);
  expect(counted).toBe(appeared);
});
