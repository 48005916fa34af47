/**
 * audit-logs collector: the window gauge equals the simulator's truth; the
 * counter equals exactly the entries that appeared after the first run, over
 * several runs and overlapping reads; serial paging with a changedTime filter.
 */
import { auditLogsCollector, type AuditLogsState } from '../../../src/collectors/management/audit-logs';
import type { CollectResult } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import type { AuditEntry } from '../../../simulator/management';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
const HOUR = 60 * MIN;

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 300, activitiesPerDay: 50, auditEntries: 20_000, auditEntriesPerDay: 4000 });
  h = managementHarness(sim, { pageSize: 500 });
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const now = (): number => sim.clock.now().getTime();

function byType(entries: AuditEntry[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of entries) out.set(e.auditType, (out.get(e.auditType) ?? 0) + 1);
  return out;
}

function nonZero(result: CollectResult<unknown>, name: string): Map<string, number> {
  return new Map(samplesNamed(result, name).filter((s) => s.value !== 0).map((s) => [s.labels.audit_type as string, s.value]));
}

/** entries with changedTime in (from, to] */
function between(from: number, to: number): AuditEntry[] {
  return sim.estate.management.auditEntries({ since: new Date(from + 1), until: new Date(to + 1) });
}

describe('audit-logs collector', () => {
  let state: AuditLogsState | undefined;
  let firstRunAt = 0;

  it('first run: the window from the service, serial paging, counters at zero', async () => {
    firstRunAt = now();
    const result = await run(auditLogsCollector, sim, h);
    const windowEntries = between(firstRunAt - 24 * HOUR - 1, firstRunAt);
    expect(windowEntries.length).toBeGreaterThan(1000);
    expect(nonZero(result, 'dataprotect_audit_events_window')).toEqual(byType(windowEntries));
    expect(samplesNamed(result, 'dataprotect_audit_events_total').every((s) => s.value === 0)).toBe(true);
    expect(samplesNamed(result, 'dataprotect_audit_events_total').length).toBeGreaterThan(5);
    // only the window was read, not the week of history, in serial pages
    expect(sim.stats.count('management', '/api/v2/audit-logs')).toBe(Math.ceil(windowEntries.length / 500));
    expect(h.requests.filter((r) => r.endpoint === '/api/v2/audit-logs').every((r) => r.code === '200')).toBe(true);
    state = result.state;
  });

  it('keeps the admitted entries for OTLP only when audit entries are forwarded, and history only as far back as the backfill', async () => {
    // A first run admits the whole window as history: 700,000 entries on a 50,000-asset estate, held only if someone forwards them.
    const forwarded = await run(auditLogsCollector, sim, h, { forwards: { activities: false, auditEntries: true, historyAfter: -Infinity } });
    const windowEntries = between(now() - 24 * HOUR - 1, now());
    expect(forwarded.events?.auditEntries?.map((entry) => entry.id).sort()).toEqual(windowEntries.map((entry) => entry.id).sort());
    // otlp.backfill 2h: the history before it would not be forwarded, so it is not kept; the counts are the same
    const historyAfter = now() - 2 * HOUR;
    const recent = await run(auditLogsCollector, sim, h, { forwards: { activities: false, auditEntries: true, historyAfter } });
    const recentIds = between(historyAfter, now()).map((entry) => entry.id);
    expect(recentIds.length).toBeGreaterThan(0);
    expect(recentIds.length).toBeLessThan(windowEntries.length / 4);
    expect(recent.events?.auditEntries?.map((entry) => entry.id).sort()).toEqual(recentIds.sort());
    expect(nonZero(recent, 'dataprotect_audit_events_window')).toEqual(byType(windowEntries));
    const kept = await run(auditLogsCollector, sim, h, { forwards: { activities: true, auditEntries: false, historyAfter: -Infinity } });
    expect(kept.events?.auditEntries).toBeUndefined();
    expect(nonZero(kept, 'dataprotect_audit_events_window')).toEqual(byType(windowEntries));
  });

  it('counts the entries that appear, exactly once, across runs', async () => {
    for (const advance of [0, 2 * MIN, 15 * MIN, 2 * HOUR]) {
      sim.clock.advance(advance);
      const result = await run(auditLogsCollector, sim, h, { state });
      expect(nonZero(result, 'dataprotect_audit_events_total')).toEqual(byType(between(firstRunAt, now())));
      expect(nonZero(result, 'dataprotect_audit_events_window')).toEqual(byType(between(now() - 24 * HOUR - 1, now())));
      state = result.state;
    }
    expect(between(firstRunAt, now()).length).toBeGreaterThan(100);
  });

  it('counts an entry that shows up late inside the overlap once, and keeps memory to the overlap', async () => {
    const late = sim.estate.management.addAuditEntry({ auditType: 'SECURITY', changedTime: new Date(now() - 4 * MIN).toISOString() });
    let result = await run(auditLogsCollector, sim, h, { state });
    result = await run(auditLogsCollector, sim, h, { state: result.state });
    state = result.state;
    const expected = byType(between(firstRunAt, now()));
    expect(expected.get('SECURITY')).toBeGreaterThan(0);
    expect(nonZero(result, 'dataprotect_audit_events_total')).toEqual(expected);
    expect(state?.seen.has(late.id)).toBe(true);
    // remembered ids: only those inside the overlap behind the newest entry
    const oldest = Math.min(...(state?.seen.values() ?? []));
    expect(oldest).toBeGreaterThanOrEqual((state?.watermark ?? 0) - 10 * MIN);
  });

  it('fails on a 500 without counting anything, then catches up', async () => {
    sim.clock.advance(HOUR);
    const before = structuredClone(state);
    sim.faults.add({ api: 'management', path: '/api/v2/audit-logs', skip: 0, times: 1, fault: { kind: 'status', status: 500 } });
    await expect(run(auditLogsCollector, sim, h, { state })).rejects.toMatchObject({ kind: 'status', status: 500 });
    expect(state).toEqual(before);
    const result = await run(auditLogsCollector, sim, h, { state });
    expect(nonZero(result, 'dataprotect_audit_events_total')).toEqual(byType(between(firstRunAt, now())));
    state = result.state;
  });

  it('leaves the previous state untouched when paging fails after pages were counted (no deep clone of it)', async () => {
    sim.clock.advance(6 * HOUR); // ~1,000 entries: several pages of 500
    const before = structuredClone(state);
    sim.faults.add({ api: 'management', path: '/api/v2/audit-logs', skip: 1, times: 1, fault: { kind: 'status', status: 500 } });
    await expect(run(auditLogsCollector, sim, h, { state })).rejects.toMatchObject({ kind: 'status', status: 500 });
    expect(state).toEqual(before);
    const result = await run(auditLogsCollector, sim, h, { state });
    expect(nonZero(result, 'dataprotect_audit_events_total')).toEqual(byType(between(firstRunAt, now())));
    expect(nonZero(result, 'dataprotect_audit_events_window')).toEqual(byType(between(now() - 24 * HOUR, now())));
  });
});
