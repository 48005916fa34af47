/**
 * What the first successful run of a job a reload made (a target added or restarted) hands over for OTLP: its history is not
 * forwarded (historyAfter Infinity), jobs included, but what it counts is, like every counted event: when its first attempt
 * failed (a source briefly down, a first read cut off by the time limit), it counts what completed after that attempt.
 */
import { activitiesCollector } from '../../../src/collectors/management/activities';
import { auditLogsCollector } from '../../../src/collectors/management/audit-logs';
import type { Forwarding } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
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
const ofReload: Forwarding = { activities: true, auditEntries: true, historyAfter: Infinity };
const total = (samples: Array<{ value: number }>): number => samples.reduce((sum, sample) => sum + sample.value, 0);

it('audit-logs: forwards each entry it counts, none of its history', async () => {
  const attempted = simNow(); // the first attempt failed here
  sim.clock.advance(10 * MIN);
  const result = await run(auditLogsCollector, sim, h, { collectingSince: new Date(attempted), forwards: ofReload });
  const counted = total(samplesNamed(result, 'dataprotect_audit_events_total'));
  const after = sim.estate.management.auditEntries({ since: new Date(attempted + 1), until: new Date(simNow() + 1) });
  expect(counted).toBe(after.length);
  expect(counted).toBeGreaterThan(5);
  expect(result.events?.auditEntries?.map((entry) => entry.id).sort()).toEqual(after.map((entry) => entry.id).sort());
});

it('activities: forwards each activity it counts, no history (nor its jobs)', async () => {
  const attempted = simNow();
  sim.clock.advance(20 * MIN);
  const result = await run(activitiesCollector, sim, h, { collectingSince: new Date(attempted), forwards: ofReload });
  const counted = total(samplesNamed(result, 'dataprotect_activities_completed_total'));
  expect(counted).toBeGreaterThan(3);
  const sent = result.events?.activities ?? [];
  expect(sent.length).toBe(counted);
  expect(sent.every((activity) => (activity.endTime as number) > attempted)).toBe(true);
});
