/**
 * A job that fails (or is canceled) while still queued completes without startTime, and the model requires no duration
 * (api-notes: treat every other field as possibly missing). The counters count it as FAILED; forwarded, it must be a span too
 * (of no length, at its end), not dropped without a trace. The service is a scripted server over loopback HTTP.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ManagementClient } from '../../src/clients/management/client';
import { activitiesCollector, type ActivitiesState } from '../../src/collectors/management/activities';
import { parseConfig, type TargetConfig } from '../../src/config/load';
import { activitySpan } from '../../src/otlp/activity-spans';
import { runCollector, silentLogger, valueOf } from '../support/collect';
import { scripted } from '../support/scripted-server';

const T0 = Date.parse('2026-11-18T10:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();

it('a job that failed while queued is counted and forwarded as a span', async () => {
  const queued = { id: 'j1', name: 'Protect vm-1', category: 'PROTECT', classType: 'JOB', state: 'QUEUED', createTime: iso(T0), updateTime: iso(T0), startTime: null, endTime: null, duration: null, result: { status: 'UNKNOWN' } };
  const failed = { ...queued, state: 'COMPLETED', updateTime: iso(T0 + 120_000), endTime: iso(T0 + 120_000), result: { status: 'FAILED' } };
  let records: object[] = [queued];
  const server = await scripted((method, path) => {
    if (method === 'POST' && path === '/api/v2/login') return { status: 200, body: { access_token: 'tok', expires_in: 3600 } };
    if (method === 'POST' && path === '/api/v2/logout') return { status: 204 };
    if (path === '/api/v2/activities') return { status: 200, body: { content: records, page: { size: 100, queryState: 'END' } } };
    return { status: 404, body: { code: 404, reason: 'not found' } };
  });
  const target = parseConfig({ targets: [{ name: 'pp', kind: 'management', url: server.url, username: 'u', password: 'p', maxAttempts: 1 }] })
    .targets[0] as TargetConfig & { kind: 'management' };
  const client = new ManagementClient(target, { logger: silentLogger });
  const forwards = { activities: true, auditEntries: false, historyAfter: T0 };
  try {
    const first = await runCollector(activitiesCollector, { target, client, now: () => new Date(T0 + 60_000), forwards });
    expect(valueOf(first, 'dataprotect_activities', { class_type: 'JOB', category: 'PROTECT', state: 'QUEUED' })).toBe(1);
    records = [failed];
    const state = first.state as ActivitiesState;
    const second = await runCollector(activitiesCollector, { target, client, state, collectingSince: new Date(T0 + 60_000), now: () => new Date(T0 + 180_000), forwards });
    expect(valueOf(second, 'dataprotect_activities_completed_total', { class_type: 'JOB', category: 'PROTECT', result: 'FAILED' })).toBe(1);
    const sent = second.events?.activities ?? [];
    expect(sent.map((activity) => activity.id)).toEqual(['j1']);
    const span = activitySpan('pp', sent[0] as (typeof sent)[number], { rootId: 'j1' }, resourceFromAttributes({}));
    expect(span).toBeDefined();
    expect(span?.endTime).toEqual([Math.floor((T0 + 120_000) / 1000), 0]);
    expect(span?.attributes['dataprotect.activity.result']).toBe('FAILED');
  } finally {
    await client.close();
    await server.close();
  }
});
