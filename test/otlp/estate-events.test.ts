/**
 * The estate's own events over OTLP, end to end: the exporter collects a
 * simulated night from the management simulator over real HTTP and forwards
 * completed activities as spans and audit entries as log records to an
 * OTLP/HTTP receiver. Checked against the simulator's truth: one span per
 * activity completed since start (parent/child structure, times, status,
 * attributes), every audit entry since start once, the same ids after a
 * restart with a backfill, and a dead or failing receiver that costs the
 * collection nothing but the drop counter.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { spanIdOf, traceIdOf } from '../../src/otlp/activity-spans';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { Activity, AuditEntry } from '../../simulator/management';
import { eventually } from '../support/cli-process';
import { nanos, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './receiver';

const MIN = 60_000;
const HOUR = 60 * MIN;
const TARGET = 'backup-prod';

let sim: RunningSimulator;
let receiver: OtlpReceiver;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 17,
    size: { assets: 300, activitiesPerDay: 1200, auditEntries: 100, auditEntriesPerDay: 300, replicatedVms: 1, storageSystems: 1 },
    startTime: new Date('2026-11-18T18:00:00Z'),
  });
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await sim.close();
});

const simNow = (): number => sim.clock.now().getTime();
const ms = (iso: string | null): number => Date.parse(iso as string);

/** An exporter running in a child process (see exporter-process.ts), on the simulator's clock. */
class RemoteExporter {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  address = '';

  constructor() {
    this.child = fork(join(__dirname, 'exporter-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    this.child.on('message', (reply: { id: number } & Record<string, unknown>) => this.waiting.get(reply.id)?.(reply));
  }

  async ask(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const reply = await new Promise<Record<string, unknown>>((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send({ id, ...message });
    });
    this.waiting.delete(id);
    if (reply.error) throw new Error(String(reply.error));
    return reply;
  }

  private settings: { otlp: Record<string, unknown>; classTypes: string[] } = { otlp: {}, classTypes: [] };

  /** The configuration of these targets (a name, or a name and settings of its own) on the simulator. */
  private config(targets: ReadonlyArray<string | [string, Record<string, unknown>]>): Record<string, unknown> {
    const { otlp, classTypes } = this.settings;
    return {
      web: { listenAddress: '127.0.0.1', port: 0 },
      collection: { activityClassTypes: classTypes },
      tracing: { endpoint: `${receiver.url}/v1/traces`, serviceName: 'exporter-under-test' },
      otlp: { activities: { enabled: true }, auditLogs: { enabled: true }, ...otlp },
      targets: targets.map((target) => {
        const [name, settings] = typeof target === 'string' ? [target, {}] : target;
        return {
          name,
          kind: 'management',
          url: sim.urls.management,
          username: sim.username,
          password: sim.password,
          // Rounds are driven by the test on the simulator's clock, not by cron (1 January only).
          collectors: { activities: { schedule: '0 0 1 1 *' }, 'audit-logs': { schedule: '0 0 1 1 *' } },
          ...settings,
        };
      }),
    };
  }

  /** starts it; its first round (both collectors of each target) must succeed */
  async start(otlp: Record<string, unknown>, classTypes: string[], targets: string[] = [TARGET]): Promise<void> {
    this.settings = { otlp, classTypes };
    const reply = await this.ask({ type: 'start', config: this.config(targets), now: simNow() });
    expect(reply.ok).toEqual(targets.flatMap(() => [true, true]));
    this.address = String(reply.address);
  }

  /** applies the configuration of these targets, as a reload does */
  async reload(targets: ReadonlyArray<string | [string, Record<string, unknown>]>): Promise<void> {
    await this.ask({ type: 'reload', config: this.config(targets), now: simNow() });
  }

  /** one collection round of both collectors of each target; every run must succeed */
  async round(): Promise<void> {
    const results = (await this.ask({ type: 'round', now: simNow() })).results as string[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((result) => result !== 'success')).toEqual([]);
  }

  async night(hours: number, step = 30 * MIN): Promise<void> {
    for (let elapsed = 0; elapsed < hours * HOUR; elapsed += step) {
      sim.clock.advance(step);
      await this.round();
    }
  }

  /** sends what is queued; the number of tasks still waiting for their job */
  async flush(): Promise<number> {
    return Number((await this.ask({ type: 'flush' })).pendingTasks);
  }

  async stop(): Promise<void> {
    await this.ask({ type: 'stop' });
    this.child.disconnect();
    await new Promise((resolve) => (this.child.exitCode !== null ? resolve(undefined) : this.child.once('exit', resolve)));
  }

  async dropped(signal: string): Promise<number> {
    const text = await (await fetch(`${this.address}/metrics`)).text();
    const match = new RegExp(`^dataprotect_otlp_dropped_total\\{signal="${signal}"\\} (\\d+)$`, 'm').exec(text);
    return match ? Number(match[1]) : 0;
  }
}

function activitiesById(): Map<string, Activity> {
  return new Map(sim.estate.management.activities().map((a) => [a.id, a]));
}

function completedBetween(after: number, until: number, classTypes: readonly string[]): Activity[] {
  return sim.estate.management
    .activities()
    .filter((a) => classTypes.includes(a.classType) && a.state === 'COMPLETED' && ms(a.endTime) > after && ms(a.endTime) <= until);
}

function auditBetween(after: number, until: number): AuditEntry[] {
  return sim.estate.management.auditEntries().filter((entry) => ms(entry.changedTime) > after && ms(entry.changedTime) <= until);
}

describe('activities as spans and audit entries as log records', () => {
  const ALL = ['JOB_GROUP', 'JOB', 'TASK'];

  it('a night, a restart with a backfill: one span per completed activity, each audit entry once, the same ids when sent again', async () => {
    receiver.mode = 'accept';
    receiver.spans.length = 0;
    receiver.logs.length = 0;

    const first = new RemoteExporter();
    const started = simNow();
    await first.start({}, ALL);
    await first.flush();
    // Only what completes after start: the 24 h the first round reads are history.
    expect(receiver.spans).toHaveLength(0);
    expect(receiver.logs).toHaveLength(0);

    sim.estate.management.addAuditEntry({ auditType: 'SECURITY', changedTime: new Date(simNow() + MIN).toISOString(), changeDescription: 'Login failed: operator' });
    await first.night(6);
    const pendingAtStop = await first.flush();
    await first.stop();
    const stoppedAt = simNow();

    const firstSpans = new Map(receiver.spans.map((span) => [span.spanId, span]));
    expect(firstSpans.size).toBe(receiver.spans.length); // none twice
    let byId = activitiesById();
    const completed = completedBetween(started, stoppedAt, ALL);
    expect(completed.length).toBeGreaterThan(50);
    // A task whose job still runs waits for it (its trace is the job group's, which only the job names).
    const waiting = completed.filter((a) => a.classType === 'TASK' && (a.parentId ? byId.get(a.parentId) : undefined)?.state !== 'COMPLETED');
    expect(pendingAtStop).toBe(waiting.length);
    const expectedFirst = completed.filter((a) => !waiting.includes(a));
    expect([...firstSpans.keys()].sort()).toEqual(expectedFirst.map((a) => spanIdOf(TARGET, a.id)).sort());
    for (const activity of expectedFirst) expectSpanOf(firstSpans.get(spanIdOf(TARGET, activity.id)) as ReceivedSpan, activity, byId);
    expect(expectedFirst.some((a) => a.result.status === 'FAILED')).toBe(true);
    expect(expectedFirst.some((a) => a.classType === 'TASK')).toBe(true);

    const audit = auditBetween(started, stoppedAt);
    expect(audit.some((entry) => entry.auditType === 'SECURITY')).toBe(true);
    expect(receiver.logs.map((record) => record.attributes['dataprotect.audit.id']).sort()).toEqual(audit.map((entry) => entry.id).sort());
    for (const entry of audit) {
      const record = receiver.logs.find((r) => r.attributes['dataprotect.audit.id'] === entry.id);
      expect(nanos(record?.timeUnixNano)).toBe(BigInt(ms(entry.changedTime)) * 1_000_000n);
      expect(record?.body?.stringValue).toBe(entry.changeDescription);
      expect(record?.severityNumber).toBe(entry.auditType === 'SECURITY' ? 13 : 9);
      expect(record?.attributes).toMatchObject({
        'dataprotect.audit.type': entry.auditType,
        'dataprotect.audit.changed_by': entry.changedBy.username,
        'dataprotect.audit.object.id': entry.changedObject.id,
        'dataprotect.audit.object.name': entry.changedObject.resourceName,
        'dataprotect.audit.object.type': entry.changedObject.resourceType,
        'dataprotect.audit.message_id': entry.messageID,
      });
      expect(record?.resource).toMatchObject({ 'service.name': 'exporter-under-test', 'dataprotect.target': TARGET });
    }
    // No credential in anything sent.
    expect(JSON.stringify([receiver.spans, receiver.logs])).not.toContain(sim.password);

    // An hour down, then a restart whose backfill reaches back to the first start.
    sim.clock.advance(HOUR);
    const second = new RemoteExporter();
    await second.start({ backfill: `${(simNow() - started) / MIN}m` }, ALL);
    await second.night(1);
    const pendingAtEnd = await second.flush();
    await second.stop();
    const end = simNow();

    byId = activitiesById();
    const all = completedBetween(started, end, ALL);
    const stillWaiting = all.filter((a) => a.classType === 'TASK' && (a.parentId ? byId.get(a.parentId) : undefined)?.state !== 'COMPLETED');
    expect(pendingAtEnd).toBe(stillWaiting.length);
    const received = new Map<string, ReceivedSpan>();
    for (const span of receiver.spans) {
      const earlier = received.get(span.spanId);
      // Sent twice (before the stop and by the backfill): the same span.
      if (earlier) expect({ traceId: span.traceId, parent: span.parentSpanId, start: span.startTimeUnixNano }).toEqual({ traceId: earlier.traceId, parent: earlier.parentSpanId, start: earlier.startTimeUnixNano });
      received.set(span.spanId, span);
    }
    const expectedAll = all.filter((a) => !stillWaiting.includes(a));
    expect([...received.keys()].sort()).toEqual(expectedAll.map((a) => spanIdOf(TARGET, a.id)).sort());
    expect(receiver.spans.length).toBeGreaterThan(received.size); // the backfill did send some again
    for (const activity of expectedAll) expectSpanOf(received.get(spanIdOf(TARGET, activity.id)) as ReceivedSpan, activity, byId);
    const auditIds = new Set(receiver.logs.map((record) => record.attributes['dataprotect.audit.id']));
    expect([...auditIds].sort()).toEqual(auditBetween(started, end).map((entry) => entry.id).sort());
  }, 240_000);

  function expectSpanOf(span: ReceivedSpan, activity: Activity, byId: ReadonlyMap<string, Activity>): void {
    const job = activity.classType === 'TASK' ? byId.get(activity.parentId as string) : undefined;
    const rootId = activity.classType === 'JOB_GROUP' ? activity.id : activity.classType === 'JOB' ? (activity.parentId ?? activity.id) : (job?.parentId ?? job?.id);
    expect(span.traceId).toBe(traceIdOf(TARGET, rootId as string));
    if (activity.classType === 'JOB_GROUP' || (activity.classType === 'JOB' && !activity.parentId)) expect(span.parentSpanId || undefined).toBeUndefined();
    else expect(span.parentSpanId).toBe(spanIdOf(TARGET, activity.parentId as string));
    expect(span.name).toBe(`${activity.category} ${activity.classType}`);
    expect(nanos(span.startTimeUnixNano)).toBe(BigInt(ms(activity.startTime)) * 1_000_000n);
    expect(nanos(span.endTimeUnixNano)).toBe(BigInt(ms(activity.endTime)) * 1_000_000n);
    const status = activity.result.status;
    expect(span.status?.code ?? 0).toBe(status === 'FAILED' || status === 'OK_WITH_ERRORS' ? 2 : status === 'OK' ? 1 : 0);
    expect(span.attributes).toMatchObject({
      'dataprotect.activity.id': activity.id,
      'dataprotect.activity.category': activity.category,
      'dataprotect.activity.subcategory': activity.subcategory,
      'dataprotect.activity.class_type': activity.classType,
      'dataprotect.activity.result': status,
      'dataprotect.activity.duration_ms': ms(activity.endTime) - ms(activity.startTime),
      'dataprotect.activity.bytes_transferred': activity.stats.bytesTransferred,
    });
    if (activity.asset) expect(span.attributes).toMatchObject({ 'dataprotect.asset.id': activity.asset.id, 'dataprotect.asset.name': activity.asset.name, 'dataprotect.asset.type': activity.asset.type });
    if (activity.protectionPolicy) expect(span.attributes).toMatchObject({ 'dataprotect.policy.id': activity.protectionPolicy.id, 'dataprotect.policy.name': activity.protectionPolicy.name });
    expect(span.resource).toMatchObject({ 'service.name': 'exporter-under-test', 'dataprotect.target': TARGET });
  }
});

describe('targets a reload adds or restarts', () => {
  const DEFAULT_TYPES = ['JOB_GROUP', 'JOB'];
  const logsOf = (target: string) => receiver.logs.filter((record) => record.resource['dataprotect.target'] === target);
  const spansOf = (target: string) => receiver.spans.filter((span) => span.resource['dataprotect.target'] === target);
  const ids = (records: typeof receiver.logs) => records.map((record) => String(record.attributes['dataprotect.audit.id'])).sort();

  it('forward what completes after their first run only: no history, nothing sent again', async () => {
    receiver.mode = 'accept';
    receiver.spans.length = 0;
    receiver.logs.length = 0;
    const exporter = new RemoteExporter();
    const started = simNow();
    await exporter.start({}, DEFAULT_TYPES);
    try {
      await exporter.night(3);
      await exporter.flush();
      expect(logsOf(TARGET).length).toBeGreaterThan(0);

      // added hours after the start, with backfill 0: its first run's history is not the exporter's downtime
      const addedAt = simNow();
      await exporter.reload([TARGET, 'added']);
      sim.clock.advance(MIN);
      await exporter.round();
      // restarted (a source setting changed): counters from zero, no history replayed
      const restartedAt = simNow();
      await exporter.reload([[TARGET, { pageSize: 200 }], 'added']);
      await exporter.flush();
      const older = (record: { attributes: Record<string, unknown> }, after: number) =>
        auditBetween(Number.NEGATIVE_INFINITY, after).some((entry) => entry.id === record.attributes['dataprotect.audit.id']);
      expect(logsOf('added').filter((record) => older(record, addedAt))).toEqual([]);
      const sent = ids(logsOf(TARGET));
      expect(sent).toEqual([...new Set(sent)]);
      expect(sent).toEqual(auditBetween(started, restartedAt).map((entry) => entry.id).sort());
      // the same for the spans: none of what completed before the target was added, none sent again by the restart
      const endOf = (span: ReceivedSpan) => ms(byId.get(String(span.attributes['dataprotect.activity.id']))?.endTime ?? null);
      const byId = activitiesById();
      expect(spansOf('added').filter((span) => endOf(span) <= addedAt).map((span) => span.name)).toEqual([]);
      const spanIds = spansOf(TARGET).map((span) => span.spanId);
      expect(spanIds.length - new Set(spanIds).size).toBe(0);

      // what completes afterwards is forwarded, once
      sim.clock.advance(30 * MIN);
      await exporter.round();
      await exporter.flush();
      const end = simNow();
      expect(ids(logsOf('added'))).toEqual(auditBetween(addedAt, end).map((entry) => entry.id).sort());
      expect(spansOf('added').length).toBeGreaterThan(0);
    } finally {
      await exporter.stop();
    }
  }, 120_000);
});

describe('a failing or dead OTLP endpoint', () => {
  const DEFAULT_TYPES = ['JOB_GROUP', 'JOB'];

  it.each([
    ['answers 503', 'unavailable' as const],
    ['never answers', 'silent' as const],
  ])('%s: every run succeeds, the drop counter counts every event lost; while an export hangs, rounds and /metrics go on', async (_name, mode) => {
    receiver.mode = mode;
    receiver.spans.length = 0;
    receiver.logs.length = 0;
    const requestsBefore = receiver.requests;
    const exporter = new RemoteExporter();
    const started = simNow();
    await exporter.start({ maxQueueSize: 20, timeout: '1s' }, DEFAULT_TYPES);
    try {
      await exporter.night(2);
      if (mode === 'silent') {
        // An export is under way and unanswered: collection and scrapes go on regardless.
        await eventually(() => receiver.open() > 0, 10_000, 'an export request to the silent receiver');
        sim.clock.advance(30 * MIN);
        await exporter.round();
        expect(receiver.open()).toBeGreaterThan(0);
        expect((await fetch(`${exporter.address}/metrics`)).status).toBe(200);
      }
      // Structurally, no export is awaited by the collection: the queue holds at most its bound.
      await exporter.flush();
      const end = simNow();
      expect(receiver.requests).toBeGreaterThan(requestsBefore);
      expect(receiver.spans).toHaveLength(0);
      const spans = completedBetween(started, end, DEFAULT_TYPES).length;
      const records = auditBetween(started, end).length;
      expect(spans).toBeGreaterThan(20); // more than the queue holds: some were dropped at the door
      expect(await exporter.dropped('traces')).toBe(spans);
      expect(await exporter.dropped('logs')).toBe(records);
    } finally {
      await exporter.stop();
      receiver.mode = 'accept';
    }
  }, 120_000);
});
