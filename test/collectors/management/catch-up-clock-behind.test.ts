/**
 * Catching up after an outage (ledger.ts, `until`) with a service whose clock is behind the exporter's by more than the window:
 * a run that is not behind (it ran a schedule interval ago) must not read as "an outage", and no read may move the watermark
 * past what the service has stamped yet, or the entries stamped in between are never read. The exporter's clock is the
 * simulator's plus the skew; the entries are stamped with the simulator's.
 */
import { auditLogsCollector, type AuditLogsState } from '../../../src/collectors/management/audit-logs';
import type { CollectResult } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import { runCollector, samplesNamed } from '../../support/collect';
import { managementHarness, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** collection.window: an hour */
const WINDOW = HOUR;
/** the service's clock is this far behind the exporter's (a time zone taken for UTC) */
const SKEW = 2 * HOUR;

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 40, auditEntries: 100, auditEntriesPerDay: 3000 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const simNow = (): number => sim.clock.now().getTime();
const exporterNow = (): Date => new Date(simNow() + SKEW);
const run = (options: { state?: AuditLogsState; collectingSince: Date }): Promise<CollectResult<AuditLogsState>> =>
  runCollector(auditLogsCollector, { target: h.target, client: h.client, now: exporterNow, settings: { window: WINDOW }, ...options });

it('audit-logs every 5 minutes, the service 2 h behind, window 1 h: every entry after collectingSince counts once', async () => {
  // the exporter started 3 h ago and its runs failed until now (the service down): its first run reads from then
  const collectingSince = new Date(exporterNow().getTime() - 3 * HOUR);
  const firstReadAt = collectingSince.getTime();
  let result = await run({ collectingSince });
  let state = result.state;
  for (let i = 0; i < 36; i++) {
    sim.clock.advance(5 * MIN);
    result = await run({ state, collectingSince });
    state = result.state;
  }
  const appeared = sim.estate.management.auditEntries({ since: new Date(firstReadAt + 1), until: new Date(simNow() + 1) }).length;
  expect(appeared).toBeGreaterThan(300);
  const counted = samplesNamed(result, 'dataprotect_audit_events_total').reduce((sum, sample) => sum + sample.value, 0);
  expect(counted).toBe(appeared);
});
