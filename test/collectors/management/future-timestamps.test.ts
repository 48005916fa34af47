/**
 * One audit entry stamped far in the future (a service clock that jumped, a
 * corrupt record) must not stop the counting: the watermark does not follow
 * a time beyond the exporter's clock plus the overlap, so the entries that
 * keep appearing are still read and counted, once each.
 */
import { auditLogsCollector, type AuditLogsState } from '../../../src/collectors/management/audit-logs';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 20, auditEntries: 100, auditEntriesPerDay: 3000 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const total = (result: { samples: Array<{ name: string; value: number }> }, name: string): number =>
  samplesNamed(result as never, name).reduce((sum, sample) => sum + sample.value, 0);

it('keeps counting the audit entries that appear after one dated a day ahead', async () => {
  const firstRunAt = sim.clock.now().getTime();
  let result = await run(auditLogsCollector, sim, h);
  let state: AuditLogsState | undefined = result.state;
  sim.estate.management.addAuditEntry({ auditType: 'SYSTEM', changedTime: new Date(firstRunAt + 24 * 60 * MIN).toISOString() });
  for (let i = 0; i < 6; i++) {
    sim.clock.advance(5 * MIN);
    result = await run(auditLogsCollector, sim, h, { state });
    state = result.state;
    const appeared = sim.estate.management.auditEntries({ since: new Date(firstRunAt + 1) }).length;
    expect(total(result, 'dataprotect_audit_events_total')).toBe(appeared);
  }
  const inWindow = sim.estate.management.auditEntries({ since: new Date(sim.clock.now().getTime() - 24 * 60 * MIN) }).length;
  expect(total(result, 'dataprotect_audit_events_window')).toBe(inWindow);
  expect(total(result, 'dataprotect_audit_events_total')).toBeGreaterThan(20);
});
