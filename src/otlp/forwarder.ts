/** Forwards each run's events as the counters count them; a TASK waits for its job, which completes later and names its group's trace. */
import type { Logger } from 'pino';
import { millisToHrTime } from '@opentelemetry/core';
import { SeverityNumber, type LogAttributes } from '@opentelemetry/api-logs';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { Activity, AuditLog } from '../clients/management/schemas';
import type { EstateEvents, Forwarding } from '../collectors/types';
import type { ExporterConfig } from '../config/load';
import { activitySpan, type ActivityPlace } from './activity-spans';
import { BoundedExportQueue } from './bounded-export';
import { DEFAULT_SERVICE_NAME, UNCOMPRESSED_OTLP } from '../tracing';
import { withoutUserInfo } from '../util/secret';

export type OtlpSignal = 'traces' | 'logs';

const MAX_BATCH_SIZE = 512;
const SCHEDULE_DELAY_MS = 2_000;
/** job ids remembered with their job group, for the tasks that complete after them */
const MAX_KNOWN_JOBS = 200_000;
const MAX_PENDING_TASKS = 50_000;
const PENDING_TASK_MS = 6 * 3_600_000;
const AUDIT_SCOPE = { name: 'dataprotect-exporter/audit' };
const TRACES_PATH = /\/v1\/traces\/?$/;

interface TargetState {
  resource: Resource;
  /** job id -> id of its job group (its own id when it has none) */
  jobRoots: Map<string, string>;
  /** job id -> tasks waiting for it, with when they arrived */
  waitingTasks: Map<string, Array<{ task: Activity; since: number }>>;
}

export class EstateEventForwarder {
  private readonly spans: BoundedExportQueue<ReadableSpan> | undefined;
  private readonly logs: BoundedExportQueue<ReadableLogRecord> | undefined;
  private readonly targets = new Map<string, TargetState>();
  private pendingCount = 0;
  /** what reportOutstanding last told, by signal */
  private readonly outstanding = new Map<OtlpSignal, number>();
  private readonly serviceName: string;
  readonly forwards: Forwarding;

  constructor(
    config: ExporterConfig,
    logger: Logger,
    private readonly onDropped: (signal: OtlpSignal, count: number) => void,
    private readonly now: () => number,
    /** told the events of a signal neither exported nor counted dropped yet, whenever that changes: lost if the thread dies */
    private readonly onOutstanding: (signal: OtlpSignal, count: number) => void = () => undefined,
  ) {
    const { otlp, tracing: { endpoint, serviceName } } = config;
    // Exclusive: with no backfill, what completed at the start is history like what completed before.
    this.forwards = { activities: otlp.activities.enabled, auditEntries: otlp.auditLogs.enabled, historyAfter: now() - otlp.backfill };
    this.serviceName = serviceName ?? process.env.OTEL_SERVICE_NAME ?? DEFAULT_SERVICE_NAME;
    const exporterOptions = (url: string | undefined) => ({ ...UNCOMPRESSED_OTLP, ...(url ? { url } : {}), timeoutMillis: otlp.timeout });
    const queueOptions = (signal: OtlpSignal) => ({
      maxQueueSize: otlp.maxQueueSize,
      maxBatchSize: MAX_BATCH_SIZE,
      scheduleDelayMs: SCHEDULE_DELAY_MS,
      onDropped: (count: number) => onDropped(signal, count),
      onChange: () => this.reportOutstanding(signal),
      onExportError: (message: string) =>
        logger.warn({ signal, err: message }, 'OTLP export failed; its events are lost (counted in dataprotect_otlp_dropped_total)'),
    });
    /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when a signal is on */
    if (otlp.activities.enabled) {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      this.spans = new BoundedExportQueue<ReadableSpan>(new OTLPTraceExporter(exporterOptions(endpoint)), queueOptions('traces'));
    }
    if (otlp.auditLogs.enabled) {
      const { OTLPLogExporter } =
        require('@opentelemetry/exporter-logs-otlp-http') as typeof import('@opentelemetry/exporter-logs-otlp-http');
      // The logs URL beside a traces URL (…/v1/traces -> …/v1/logs); none: OTEL_EXPORTER_OTLP_* decide.
      const url = endpoint && TRACES_PATH.test(endpoint) ? endpoint.replace(TRACES_PATH, '/v1/logs') : undefined;
      this.logs = new BoundedExportQueue<ReadableLogRecord>(new OTLPLogExporter(exporterOptions(url)), queueOptions('logs'));
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
  }

  /** Sends what the collectors admitted: they leave out the history before `historyAfter`, and all history a reload's first run reads. */
  accept(target: string, events: EstateEvents): void {
    const { activities = [], jobs = [] } = events;
    if (this.spans && (activities.length > 0 || jobs.length > 0)) this.acceptActivities(target, activities, jobs);
    if (this.logs && events.auditEntries?.length) {
      const { resource } = this.stateOf(target);
      const observed = this.now();
      this.logs.add(events.auditEntries.map((entry) => auditRecord(entry, resource, observed)));
    }
    this.reportOutstanding('traces');
  }

  /** Sends what is queued (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([this.spans?.flush(), this.logs?.flush()]);
  }

  get pendingTasks(): number {
    return this.pendingCount;
  }

  /** Sends what is queued within `timeoutMs` and stops; the rest, waiting tasks included, is counted lost (a backfill may resend it). */
  async shutdown(timeoutMs: number): Promise<void> {
    if (this.spans && this.pendingCount > 0) this.onDropped('traces', this.pendingCount);
    for (const state of this.targets.values()) state.waitingTasks.clear();
    this.pendingCount = 0;
    this.reportOutstanding('traces');
    await Promise.all([this.spans?.shutdown(timeoutMs), this.logs?.shutdown(timeoutMs)]);
  }

  /** Forgets a target that a reload removed (its remembered jobs and waiting tasks: never sent, so counted lost). */
  removeTarget(target: string): void {
    let lost = 0;
    for (const tasks of this.targets.get(target)?.waitingTasks.values() ?? []) lost += tasks.length;
    this.pendingCount -= lost;
    if (lost > 0) this.onDropped('traces', lost);
    this.targets.delete(target);
    this.reportOutstanding('traces');
  }

  /** Queued and in flight, and for traces the tasks waiting for their job. */
  private reportOutstanding(signal: OtlpSignal): void {
    const queue = signal === 'traces' ? this.spans : this.logs;
    if (!queue) return;
    const count = queue.outstanding + (signal === 'traces' ? this.pendingCount : 0);
    if (this.outstanding.get(signal) === count) return;
    this.outstanding.set(signal, count);
    this.onOutstanding(signal, count);
  }

  /** `jobs`: not sent (history), but they parent their tasks */
  private acceptActivities(target: string, activities: readonly Activity[], jobs: readonly Activity[]): void {
    const { jobRoots: roots, waitingTasks: pending, resource } = this.stateOf(target);
    const spans: ReadableSpan[] = [];
    const emit = (activity: Activity, place: ActivityPlace): void => {
      const span = activitySpan(target, activity, place, resource);
      if (span) spans.push(span);
    };
    const sent = new Set(activities);
    // Jobs first: a task of the same run then finds its job's group.
    for (const activity of [...jobs, ...activities]) {
      if (activity.classType === 'TASK') continue;
      const rootId = activity.classType === 'JOB' && activity.parentId ? activity.parentId : activity.id;
      if (activity.classType === 'JOB') remember(roots, activity.id, rootId);
      if (sent.has(activity)) emit(activity, { rootId, ...(rootId !== activity.id ? { parentId: rootId } : {}) });
      for (const waiting of pending.get(activity.id) ?? []) emit(waiting.task, { rootId, parentId: activity.id });
      this.pendingCount -= pending.get(activity.id)?.length ?? 0;
      pending.delete(activity.id);
    }
    const now = this.now();
    for (const task of activities) {
      if (task.classType !== 'TASK') continue;
      const jobId = task.parentId;
      const rootId = jobId ? roots.get(jobId) : task.id;
      if (!jobId || rootId !== undefined) {
        emit(task, { rootId: rootId ?? task.id, ...(jobId ? { parentId: jobId } : {}) });
      } else if (this.pendingCount < MAX_PENDING_TASKS) {
        const waiting = pending.get(jobId) ?? [];
        waiting.push({ task, since: now });
        pending.set(jobId, waiting);
        this.pendingCount += 1;
      } else {
        emit(task, { rootId: jobId, parentId: jobId });
      }
    }
    // Tasks whose job never came (JOB not among the class types, a job deleted): their job's own trace.
    for (const [jobId, waiting] of pending) {
      if (now - (waiting[0]?.since ?? now) < PENDING_TASK_MS) continue;
      for (const { task } of waiting) emit(task, { rootId: jobId, parentId: jobId });
      this.pendingCount -= waiting.length;
      pending.delete(jobId);
    }
    this.spans?.add(spans);
  }

  private stateOf(target: string): TargetState {
    let state = this.targets.get(target);
    if (!state) {
      const resource = resourceFromAttributes({ 'service.name': this.serviceName, 'dataprotect.target': target });
      this.targets.set(target, (state = { resource, jobRoots: new Map(), waitingTasks: new Map() }));
    }
    return state;
  }
}

/** An audit entry as a log record: WARN for the auditType SECURITY (logins, users, roles, certificates: what a security team watches). */
function auditRecord(entry: AuditLog, resource: Resource, observedMs: number): ReadableLogRecord {
  const attributes: LogAttributes = { 'dataprotect.audit.id': entry.id, 'dataprotect.audit.type': entry.auditType };
  const optional: Array<[string, string | null | undefined]> = [
    ['dataprotect.audit.changed_by', entry.changedBy?.username],
    ['dataprotect.audit.changed_by_id', entry.changedBy?.id],
    ['dataprotect.audit.object.id', entry.changedObject?.id],
    ['dataprotect.audit.object.name', entry.changedObject?.resourceName],
    ['dataprotect.audit.object.type', entry.changedObject?.resourceType],
    ['dataprotect.audit.message_id', entry.messageID],
  ];
  for (const [key, value] of optional) if (value != null && value !== '') attributes[key] = value;
  const security = entry.auditType === 'SECURITY';
  return {
    hrTime: millisToHrTime(entry.changedTime),
    hrTimeObserved: millisToHrTime(observedMs),
    severityNumber: security ? SeverityNumber.WARN : SeverityNumber.INFO,
    severityText: security ? 'WARN' : 'INFO',
    body: entry.changeDescription ?? entry.auditType,
    resource,
    instrumentationScope: AUDIT_SCOPE,
    attributes,
    droppedAttributesCount: 0,
  };
}

/** Remembers a job's group, forgetting the oldest jobs beyond MAX_KNOWN_JOBS (a Map keeps insertion order). */
function remember(roots: Map<string, string>, jobId: string, rootId: string): void {
  roots.delete(jobId);
  roots.set(jobId, rootId);
  if (roots.size > MAX_KNOWN_JOBS) roots.delete(roots.keys().next().value as string);
}

export function forwarderFor(
  config: ExporterConfig,
  logger: Logger,
  onDropped: (signal: OtlpSignal, count: number) => void,
  now: () => Date,
  onOutstanding?: (signal: OtlpSignal, count: number) => void,
): EstateEventForwarder | undefined {
  const { activities, auditLogs } = config.otlp;
  if (!activities.enabled && !auditLogs.enabled) return undefined;
  const endpoint = config.tracing.endpoint ? withoutUserInfo(config.tracing.endpoint) : 'from OTEL_EXPORTER_OTLP_*';
  logger.info({ activities: activities.enabled, auditLogs: auditLogs.enabled, endpoint }, 'forwarding estate events over OTLP');
  return new EstateEventForwarder(config, logger.child({ component: 'otlp' }), onDropped, () => now().getTime(), onOutstanding);
}
