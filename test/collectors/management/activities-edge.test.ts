/**
 * activities collector on records the simulator never sends: a COMPLETED
 * activity without result.status, and one without endTime that the service
 * touches again later. A scripted client stands in for the service.
 */
import { activitiesCollector, type ActivitiesState } from '../../../src/collectors/management/activities';
import type { ManagementClient } from '../../../src/clients/management/client';
import type { Activity } from '../../../src/clients/management/schemas';
import { parseConfig, type TargetConfig } from '../../../src/config/load';
import { runCollector, valueOf } from '../../support/collect';

const target = parseConfig({ targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:1', username: 'u', password: 'p' }] })
  .targets[0] as TargetConfig;

/** A client whose activities listing answers every query with the current `records` (filters are the service's job; the ledger de-duplicates). */
function scriptedClient(records: { current: Activity[] }): ManagementClient {
  return {
    async *activities() {
      yield records.current;
    },
  } as unknown as ManagementClient;
}

const T0 = Date.parse('2026-11-21T12:00:00Z');
function activity(overrides: Partial<Activity>): Activity {
  return {
    id: 'a1',
    category: 'PROTECT',
    classType: 'JOB',
    state: 'RUNNING',
    createTime: T0,
    updateTime: T0,
    startTime: T0,
    endTime: null,
    duration: null,
    result: null,
    ...overrides,
  } as Activity;
}

async function run(records: { current: Activity[] }, state: ActivitiesState | undefined, now: number) {
  return runCollector(activitiesCollector, { target, client: scriptedClient(records), state, now: () => new Date(now) });
}

describe('activities collector: records the simulator does not produce', () => {
  it('counts a COMPLETED activity without result.status under UNKNOWN instead of failing every run', async () => {
    const records = { current: [activity({ state: 'RUNNING' })] };
    const first = await run(records, undefined, T0 + 60_000);
    records.current = [activity({ state: 'COMPLETED', updateTime: T0 + 120_000, endTime: T0 + 120_000, result: null })];
    const second = await run(records, first.state, T0 + 180_000);
    expect(valueOf(second, 'dataprotect_activities_completed_total', { category: 'PROTECT', result: 'UNKNOWN' })).toBe(1);
    expect(valueOf(second, 'dataprotect_activities', { category: 'PROTECT', state: 'RUNNING' })).toBe(0);
  });

  it('reads bytes from stats.bytesTransferred, falling back to the deprecated result.bytesTransferred, per class_type', async () => {
    const records = { current: [activity({ id: 'g1', classType: 'JOB_GROUP' }), activity({ id: 'j1' }), activity({ id: 'j2' })] };
    const first = await run(records, undefined, T0 + 60_000);
    const end = { state: 'COMPLETED', updateTime: T0 + 120_000, endTime: T0 + 120_000 } as const;
    records.current = [
      activity({ id: 'g1', classType: 'JOB_GROUP', ...end, result: { status: 'OK', bytesTransferred: 540 }, stats: { bytesTransferred: 540 } } as Partial<Activity>),
      activity({ id: 'j1', ...end, result: { status: 'OK', bytesTransferred: 7 }, stats: { bytesTransferred: 500 } } as Partial<Activity>),
      activity({ id: 'j2', ...end, result: { status: 'OK', bytesTransferred: 40 }, stats: null } as Partial<Activity>),
    ];
    const second = await run(records, first.state, T0 + 180_000);
    expect(valueOf(second, 'dataprotect_activity_transferred_bytes_total', { class_type: 'JOB', category: 'PROTECT' })).toBe(540);
    expect(valueOf(second, 'dataprotect_activity_transferred_bytes_total', { class_type: 'JOB_GROUP', category: 'PROTECT' })).toBe(540);
    expect(valueOf(second, 'dataprotect_activities_completed_total', { class_type: 'JOB', category: 'PROTECT', result: 'OK' })).toBe(2);
    expect(valueOf(second, 'dataprotect_activities_completed_total', { class_type: 'JOB_GROUP', category: 'PROTECT', result: 'OK' })).toBe(1);
  });

  it('counts an activity without endTime once, even when the service updates it again much later', async () => {
    const records = { current: [] as Activity[] };
    const first = await run(records, undefined, T0);
    const done = activity({ id: 'b1', state: 'COMPLETED', startTime: T0 + 60_000, duration: 600_000, updateTime: T0 + 660_000, result: { status: 'OK' } as Activity['result'] });
    records.current = [done];
    const second = await run(records, first.state, T0 + 700_000);
    expect(valueOf(second, 'dataprotect_activities_completed_total', { category: 'PROTECT', result: 'OK' })).toBe(1);
    // An hour later the record is touched again (say an annotation): updateTime moves, the completion does not.
    records.current = [{ ...done, updateTime: T0 + 4_000_000 }];
    const third = await run(records, second.state, T0 + 4_100_000);
    expect(valueOf(third, 'dataprotect_activities_completed_total', { category: 'PROTECT', result: 'OK' })).toBe(1);
  });
});
