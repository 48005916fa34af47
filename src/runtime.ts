import type { Logger } from 'pino';
import type { ExporterConfig, TargetConfig, TargetKind } from './config/load';
import { configChange } from './config/fingerprint';
import { createClient } from './clients';
import { ResponseBudget } from './clients/response-budget';
import { COLLECTORS } from './collectors/registry';
import type { AnyCollector } from './collectors/types';
import { SnapshotStore, type StoreListener } from './snapshot/store';
import { CollectorJob, type JobCheckpoint, type JobSettings, type RunResult, type TargetRuntime } from './scheduler/job';
import { Scheduler } from './scheduler/scheduler';
import { runInFirstRoundOrder } from './scheduler/first-round';
import { scheduleGaps } from './scheduler/interval';
import { ownedTargets } from './scheduler/sharding';
import { forwarderFor, type EstateEventForwarder, type OtlpSignal } from './otlp/forwarder';
import type { Tracing } from './tracing';
import type { RequestObserver } from './clients/http';
import { FLUSH_MS, SPANS_STEP, STOP_DEADLINE_MS } from './stop-deadline';

const MAX_DEFAULT_TIMEOUT_MS = 5 * 60_000;

export type Checkpoints = Map<string, Map<string, JobCheckpoint>>;

export interface ConfigChange {
  added: string[];
  removed: string[];
  restarted: string[];
  rescheduled: string[];
}

/** What a client reports of one HTTP attempt, as the self-metrics count it. */
export type RequestEvent = Omit<Parameters<RequestObserver['onRequest']>[0], 'method'>;

/** What collection reports to the self-metrics (SelfMetrics in this thread; src/collection/worker.ts sends it across). */
export interface CollectionObserver {
  onRequest(event: RequestEvent): void;
  onOtlpDropped(signal: OtlpSignal, count: number): void;
  /** the events of a signal queued for OTLP and neither exported nor counted dropped, whenever that changes */
  onOtlpOutstanding?(signal: OtlpSignal, count: number): void;
  /** whether every collector has finished a first run (see firstRoundComplete), whenever that may have changed */
  recordFirstRound(complete: boolean): void;
}

/** Collection as src/exporter.ts drives it: in a thread of its own (src/collection/host.ts) or in this one. */
export interface Collection {
  readonly store: SnapshotStore;
  firstRoundComplete(): boolean;
  /** a first round right away, then every collector on its own schedule */
  start(): void;
  /** every collector of every target once (a first round each, the targets in parallel) */
  runOnce(): Promise<RunResult[]>;
  applyConfig(next: ExporterConfig): Promise<ConfigChange>;
  /** aborts the runs, logs out, sends what is queued within `budgetMs`; resolves with the steps it cut short */
  stop(budgetMs?: number): Promise<string[]>;
}

type ActiveTarget = { runtime: TargetRuntime; jobs: CollectorJob[] };

/** One TargetRuntime per target this replica owns, one CollectorJob per enabled collector. */
export class ExporterRuntime implements Collection {
  readonly store: SnapshotStore;
  readonly responseBudget: ResponseBudget;
  /** the estate's events over OTLP; undefined when otlp.activities and otlp.auditLogs are off */
  readonly events: EstateEventForwarder | undefined;
  private readonly scheduler: Scheduler;
  private readonly targets = new Map<string, ActiveTarget>();
  private scheduling = false;
  /** the jobs made from here on are a reload's */
  private reloading = false;

  constructor(
    private config: ExporterConfig,
    private readonly deps: {
      logger: Logger;
      observer?: CollectionObserver;
      now?: () => Date;
      /** tests substitute their own */
      collectorsFor?: (kind: TargetKind) => readonly AnyCollector[];
      /** tests observe it */
      responseBudget?: ResponseBudget;
      /** told of every change of the store (the collection thread sends them to the serving thread) */
      storeListener?: StoreListener;
      /** the collection thread's own traces, sent at stop */
      tracing?: Tracing;
      /** where the first jobs of this runtime resume counting; emptied once they are made */
      resumeFrom?: Checkpoints;
      onCheckpoint?: (target: string, collector: string, checkpoint: JobCheckpoint) => void;
    },
  ) {
    this.store = new SnapshotStore(deps.storeListener);
    this.scheduler = new Scheduler(deps.logger);
    this.responseBudget = deps.responseBudget ?? new ResponseBudget(config.collection.maxBufferedResponseBytes);
    const onDropped = (signal: OtlpSignal, count: number): void => deps.observer?.onOtlpDropped(signal, count);
    const onOutstanding = (signal: OtlpSignal, count: number): void => deps.observer?.onOtlpOutstanding?.(signal, count);
    this.events = forwarderFor(config, deps.logger, onDropped, deps.now ?? (() => new Date()), onOutstanding);
    for (const target of ownedTargets(config)) this.addTarget(target);
    // Only the first jobs resume: one a reload enables later starts afresh, as it would without a restart of the thread between.
    deps.resumeFrom?.clear();
    this.reloading = true;
  }

  private addTarget(target: TargetConfig): ActiveTarget {
    const logger = this.deps.logger.child({ target: target.name });
    const runtime: TargetRuntime = {
      config: target,
      client: createClient(target, { logger, responseBudget: this.responseBudget, observer: this.deps.observer }),
      shared: new Map(),
    };
    const active = { runtime, jobs: this.jobsFor(runtime, []) };
    this.targets.set(target.name, active);
    return active;
  }

  /** The jobs of the target's enabled collectors, registered in the store; a job of `kept` is reused, with its state. */
  private jobsFor(runtime: TargetRuntime, kept: readonly CollectorJob[]): CollectorJob[] {
    const target = runtime.config;
    const jobs: CollectorJob[] = [];
    for (const definition of this.deps.collectorsFor?.(target.kind) ?? COLLECTORS[target.kind]) {
      const overrides = target.collectors[definition.name];
      if (overrides?.enabled === false) continue;
      const schedule = overrides?.schedule ?? definition.defaultSchedule;
      const gaps = scheduleGaps(schedule);
      // A run's time limit: 80 % of the shortest gap, so that a run ends before the next is due (at least 5 s, at most
      // MAX_DEFAULT_TIMEOUT_MS), unless configured. Staleness is judged by the longest gap.
      const timeoutMs = overrides?.timeout ?? Math.min(MAX_DEFAULT_TIMEOUT_MS, Math.max(5_000, gaps.shortest * 800));
      const settings = { schedule, timeoutMs, maxTimeoutMs: overrides?.timeout ?? MAX_DEFAULT_TIMEOUT_MS };
      this.store.register(target.name, target.kind, definition.name, gaps.longest);
      const job = kept.find((candidate) => candidate.name === definition.name);
      // A reload that changes only the collectors' settings keeps the job and its state; a run going on keeps its time limit.
      if (job) job.settings = settings;
      jobs.push(job ?? this.newJob(runtime, definition, settings));
    }
    return jobs;
  }

  private newJob(runtime: TargetRuntime, definition: CollectorJob['definition'], settings: JobSettings): CollectorJob {
    const target = runtime.config.name;
    // A checkpoint is taken once: a job the runtime makes later (a target restarted by a reload) starts afresh.
    const resumeFrom = this.deps.resumeFrom?.get(target)?.get(definition.name);
    this.deps.resumeFrom?.get(target)?.delete(definition.name);
    const { onCheckpoint, now, logger } = this.deps;
    return new CollectorJob(runtime, definition, settings, {
      resumeFrom,
      onCheckpoint: onCheckpoint && ((checkpoint: JobCheckpoint) => onCheckpoint(target, definition.name, checkpoint)),
      store: this.store,
      logger,
      settings: () => this.config.collection,
      now,
      events: this.events,
      madeByReload: this.reloading,
    });
  }

  async runOnce(): Promise<RunResult[]> {
    const results = await Promise.all([...this.targets.values()].map((target) => this.runFirstRound(target)));
    this.reportFirstRound();
    return results.flat();
  }

  /** Every collector once, sharing the target's connections as any run does: a first round takes its longest chain, not the sum of all. */
  private runFirstRound(target: ActiveTarget): Promise<RunResult[]> {
    return runInFirstRoundOrder(target.jobs, (job) => job.definition, (job) => job.run());
  }

  start(): void {
    this.scheduling = true;
    for (const target of this.targets.values()) this.startTarget(target);
  }

  private startTarget(target: ActiveTarget): void {
    void this.runFirstRound(target).then(() => {
      this.reportFirstRound();
      // The target may have been removed by a reload while its first round ran.
      for (const job of target.jobs) this.scheduleIfActive(target, job);
    });
  }

  /** Whether every collector has finished a run. Not the readiness: a target that never answers would keep that false forever. */
  firstRoundComplete(): boolean {
    return this.store.all().every((record) => record.lastRunEndAt !== undefined);
  }

  private reportFirstRound(): void {
    this.deps.observer?.recordFirstRound(this.firstRoundComplete());
  }

  /** A target whose collectors' settings alone changed keeps its client, its collectors' state (counters, watermarks) and its series. */
  async applyConfig(next: ExporterConfig): Promise<ConfigChange> {
    const change = configChange(this.config, next);
    this.config = next;
    this.responseBudget.limitBytes = next.collection.maxBufferedResponseBytes;
    const wanted = new Map(ownedTargets(next).map((target) => [target.name, target]));
    for (const [name, active] of this.targets) {
      const target = wanted.get(name);
      if (target && change.rescheduled.includes(name)) await this.rescheduleTarget(active, target);
      else if (!target || change.restarted.includes(name)) await this.stopTarget(name, active);
    }
    for (const [name, target] of wanted) {
      if (this.targets.has(name)) continue;
      const active = this.addTarget(target);
      if (this.scheduling) this.startTarget(active);
    }
    for (const name of change.removed) this.events?.removeTarget(name);
    this.reportFirstRound();
    return change;
  }

  /** Moves the jobs still enabled, with their state and their runs going on, to their new schedules: nothing runs early. */
  private async rescheduleTarget(active: ActiveTarget, target: TargetConfig): Promise<void> {
    active.runtime.config = target;
    const previous = active.jobs;
    active.jobs = this.jobsFor(active.runtime, previous);
    for (const job of previous) {
      if (active.jobs.includes(job)) continue;
      await this.scheduler.remove(job);
      this.store.remove(target.name, job.name);
    }
    for (const job of active.jobs) {
      if (previous.includes(job)) await this.scheduler.reschedule(job);
      else if (this.scheduling) void job.run().then(() => this.scheduleIfActive(active, job));
    }
  }

  /** Puts the job on its schedule unless a reload or the stop has removed its target meanwhile. */
  private scheduleIfActive(active: ActiveTarget, job: CollectorJob): void {
    if (this.scheduling && this.targets.get(active.runtime.config.name) === active && active.jobs.includes(job)) this.scheduler.add(job);
  }

  /** Aborts the target's runs and logs out in the background: a reload never waits on a source. */
  private async stopTarget(name: string, active: ActiveTarget): Promise<void> {
    this.targets.delete(name);
    await Promise.all(active.jobs.map((job) => this.scheduler.remove(job)));
    this.store.removeTarget(name);
    void this.closeClient(active);
  }

  private closeClient(active: ActiveTarget): Promise<void> {
    const target = active.runtime.config.name;
    return active.runtime.client.close().catch((error: Error) => this.deps.logger.warn({ target, err: error }, 'closing client failed'));
  }

  /** Aborts the runs (their results discarded) and logs out; queued events and spans get half of `budgetMs`, at most FLUSH_MS. */
  async stop(budgetMs = STOP_DEADLINE_MS): Promise<string[]> {
    this.scheduling = false;
    // Jobs of a first round still going on are not in the scheduler yet: both are stopped at once.
    await Promise.all([this.scheduler.stop(), ...[...this.targets.values()].flatMap((target) => target.jobs.map((job) => job.stop()))]);
    await Promise.all([...this.targets.values()].map((target) => this.closeClient(target)));
    const flushMs = Math.min(FLUSH_MS, budgetMs / 2);
    const [, spansSent] = await Promise.all([this.events?.shutdown(flushMs), this.deps.tracing?.shutdown(flushMs)]);
    return spansSent === false ? [SPANS_STEP] : [];
  }
}
