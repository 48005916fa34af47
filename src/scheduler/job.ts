import { trace, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { ExporterConfig, TargetConfig } from '../config/load';
import type { AnyClient } from '../clients';
import { ApiError } from '../clients/errors';
import { countingRequests, type RunCount } from '../clients/run-requests';
import { PermissionDenied, sharedView, type AnyCollector, type CollectResult, type SharedEntry } from '../collectors/types';
import { scheduleIntervalSeconds } from './interval';
import type { EstateEventForwarder } from '../otlp/forwarder';
import type { SnapshotStore } from '../snapshot/store';
import { metricFamily } from '../metrics/catalog';
import { prepareResult } from '../exporters/prepared';
import { SkippedItemLog } from './skipped-items';
import { LinkedSignal } from '../util/linked-signal';

/** One configured target at run time: its client and the values its collectors share. */
export interface TargetRuntime {
  /** replaced by a reload that changes only the target's `collectors:` settings */
  config: TargetConfig;
  readonly client: AnyClient;
  readonly shared: Map<string, SharedEntry>;
}

export type RunResult = 'success' | 'failure' | 'skipped';

/** The settings of a job that a reload may change without restarting it. */
export interface JobSettings {
  schedule: string;
  timeoutMs: number;
  /** what the time limit may double up to after runs it cut off (a first run's backfill, a catch-up), until one succeeds */
  maxTimeoutMs?: number;
}

export class CollectorTimeoutError extends Error {
  constructor(collector: string, readonly timeoutMs: number) {
    super(`${collector} did not finish within its time limit of ${timeoutMs} ms`);
    this.name = 'CollectorTimeoutError';
  }
}

const tracer = trace.getTracer('dataprotect-exporter');

/** Runs a target's collector: one run at a time, within a time limit; on success, state, shared values and result kept in one step. */
export class CollectorJob {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private state: any;
  /** Set by the first run, successful or not: what completes before the next successful run is counted, not taken for history. */
  private collectingSince: Date | undefined;
  private running: Promise<RunResult> | undefined;
  /** aborts the current run's requests */
  private runController: AbortController | undefined;
  private stopped = false;
  private readonly skippedItems = new SkippedItemLog();
  /** the time limit of the last run, when it cut that run off */
  private cutOffAtMs: number | undefined;
  /** a counter among its metrics: its state carries running totals, kept in checkpoints */
  private readonly countsEvents: boolean;

  constructor(
    readonly runtime: TargetRuntime,
    readonly definition: AnyCollector,
    public settings: JobSettings,
    private readonly deps: {
      store: SnapshotStore;
      logger: Logger;
      settings: () => ExporterConfig['collection'];
      now?: () => Date;
      /** receives the estate's events of a successful run (OTLP forwarding); `accept` must only queue them */
      events?: Pick<EstateEventForwarder, 'forwards' | 'accept'>;
      /** a job a reload made: its first run forwards no history (otlp.backfill is the exporter's downtime before it started) */
      madeByReload?: boolean;
      /** where a collector that counts the estate's events resumes (a checkpoint of a thread that died) */
      resumeFrom?: JobCheckpoint;
      /** receives the checkpoint of each successful run of a collector that counts the estate's events */
      onCheckpoint?: (checkpoint: JobCheckpoint) => void;
    },
  ) {
    this.countsEvents = definition.metrics.some((name) => metricFamily(name).type === 'counter');
    this.state = deps.resumeFrom?.state;
    this.collectingSince = deps.resumeFrom?.collectingSince;
  }

  get name(): string {
    return this.definition.name;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Starts a run unless one is going on or the job is stopped; resolves when it ends. */
  run(): Promise<RunResult> {
    const target = this.runtime.config.name;
    // A stopped job's target is being removed or restarted: its records and client may be gone, a run would report into its successor's.
    if (this.stopped) return Promise.resolve('skipped');
    if (this.running) {
      this.deps.store.runSkipped(target, this.name);
      this.deps.logger.warn({ target, collector: this.name }, 'previous run still going; skipping this one');
      return Promise.resolve('skipped');
    }
    this.running = this.execute().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** A scheduled time passed while the thread was too busy to start the run: counted and logged as a skipped run. */
  missed(): void {
    if (this.stopped) return;
    const target = this.runtime.config.name;
    this.deps.store.runSkipped(target, this.name);
    this.deps.logger.warn({ target, collector: this.name }, 'the collection thread was busy at the run\'s time; skipping this one');
  }

  /** No run starts any more and the current one is aborted, its result discarded: a hanging source must hold no reload or shutdown. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.runController?.abort(new Error('collector stopped'));
    await this.running?.catch(() => undefined);
  }

  /** A run its stop cut off (or that ended after it): its target is going or the process is, so nothing is recorded. */
  private discarded(span: Span, logger: Logger): RunResult {
    span.setAttribute('dataprotect.result', 'stopped');
    logger.debug('run stopped; its result is discarded');
    return 'skipped';
  }

  private execute(): Promise<RunResult> {
    const target = this.runtime.config.name;
    return tracer.startActiveSpan(`collect ${this.name}`, async (span) => {
      span.setAttributes({ 'dataprotect.target': target, 'dataprotect.collector': this.name });
      const logger = this.deps.logger.child({ target, collector: this.name });
      this.deps.store.runStarted(target, this.name);
      const count: RunCount = { requests: 0, answers: 0, skipped: [] };
      const run: Run = { span, logger, started: performance.now(), count, controller: new AbortController() };
      this.runController = run.controller;
      try {
        return await this.succeeded(run, await this.collectWithinLimit(run));
      } catch (error) {
        return this.failed(run, error as Error);
      } finally {
        if (!run.controller.signal.aborted) run.controller.abort(new Error('run finished'));
        // Whatever became of the run, as far as it got: a failed or stopped run's requests tell where it stopped.
        span.setAttribute('dataprotect.requests', run.count.requests);
        // Items skipped count whatever became of the run: they were read and refused.
        if (run.count.skipped.length > 0) span.setAttribute('dataprotect.skipped_items', run.count.skipped.length);
        this.deps.store.itemsSkipped(target, this.name, this.skippedItems.report(logger, run.count.skipped));
        span.end();
      }
    });
  }

  /** The collector's run, ended at its time limit or stop even if it ignores its signal; checking its result is not within the limit. */
  private async collectWithinLimit({ logger, started, count, controller }: Run): Promise<CollectResult<unknown>> {
    const { timeoutMs: setMs, maxTimeoutMs = setMs } = this.settings;
    const timeoutMs = this.cutOffAtMs === undefined ? setMs : Math.max(setMs, Math.min(maxTimeoutMs, this.cutOffAtMs * 2));
    const limit = new LinkedSignal(controller.signal, timeoutMs);
    const signal = limit.signal;
    const aborted = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => {
        reject(limit.timedOut ? new CollectorTimeoutError(this.name, timeoutMs) : (controller.signal.reason as Error));
      }),
    );
    const now = this.deps.now ?? (() => new Date());
    const forwards = this.deps.events?.forwards;
    const context = {
      target: this.runtime.config,
      client: this.runtime.client,
      settings: this.deps.settings(),
      logger,
      state: this.state,
      shared: sharedView(this.runtime.shared, now),
      now,
      collectingSince: (this.collectingSince ??= now()),
      scheduleIntervalMs: scheduleIntervalSeconds(this.settings.schedule) * 1000,
      forwards: forwards && this.deps.madeByReload ? { ...forwards, historyAfter: Infinity } : forwards,
      timeLimit: { totalMs: timeoutMs, leftMs: () => timeoutMs - (performance.now() - started) },
    };
    const collecting = countingRequests(count, () => this.definition.collect(context, signal));
    collecting.catch(() => undefined);
    aborted.catch(() => undefined);
    return Promise.race([collecting, aborted]).finally(() => limit.dispose());
  }

  /** Checks and prepares the result, then keeps it, the state and the shared values in one step. */
  private succeeded({ span, logger, started, count }: Run, result: CollectResult<unknown>): RunResult {
    const target = this.runtime.config.name;
    const ready = prepareResult(result, target);
    if (this.stopped) return this.discarded(span, logger);
    this.state = result.state;
    this.cutOffAtMs = undefined;
    if (this.countsEvents) this.deps.onCheckpoint?.({ state: this.state, collectingSince: this.collectingSince as Date });
    // seen until staleAfter past this collector's next run, as its series are served
    const seenForMs = scheduleIntervalSeconds(this.settings.schedule) * 1000 + this.deps.settings().staleAfter;
    for (const [key, value] of result.publish ?? []) this.runtime.shared.set(key.id, { value, until: value.readAt + seenForMs });
    try {
      if (result.events) this.deps.events?.accept(target, result.events);
    } catch (error) {
      // a forwarding problem never fails the run
      logger.warn({ err: (error as Error).message }, 'forwarding events over OTLP failed');
    }
    const durationSeconds = (performance.now() - started) / 1000;
    this.deps.store.runFinished(target, this.name, { ok: true, durationSeconds, endedAt: Date.now(), result: ready });
    span.setAttributes({
      'dataprotect.result': 'success',
      'dataprotect.series': ready.series,
      ...(result.items !== undefined ? { 'dataprotect.items': result.items } : {}),
    });
    logger.debug({ durationSeconds, series: ready.series, items: result.items, requests: count.requests }, 'collection succeeded');
    return 'success';
  }

  private failed({ span, logger, started, count }: Run, err: Error): RunResult {
    if (this.stopped) return this.discarded(span, logger);
    if (err instanceof CollectorTimeoutError) this.cutOffAtMs = err.timeoutMs;
    // A run its own time limit ended was slow where the source answered it, and met a source that hangs where it sent requests and
    // none was answered, or waited on a login or discovery another run sent: its requests' time limits (retried) can outlast the run's.
    const hung = err instanceof CollectorTimeoutError && count.requests + (count.sharedWaits ?? 0) > 0 && count.answers === 0;
    const unreachable = (err instanceof ApiError && err.unreachable) || hung;
    const durationSeconds = (performance.now() - started) / 1000;
    const outcome = { ok: false as const, durationSeconds, endedAt: Date.now(), error: err.message, unreachable };
    this.deps.store.runFinished(this.runtime.config.name, this.name, outcome);
    span.recordException(err);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
    span.setAttributes({ 'dataprotect.result': 'failure', 'dataprotect.error': err.message });
    // A failure the collector logged itself (a missing role, at most hourly) is not repeated every run.
    if (err instanceof PermissionDenied) logger.debug({ err, durationSeconds }, 'collection failed');
    else logger.warn({ err, durationSeconds }, 'collection failed');
    return 'failure';
  }
}

/** One run going on: what its steps share. */
interface Run {
  span: Span;
  logger: Logger;
  /** performance.now() at its start */
  started: number;
  count: RunCount;
  /** aborted by a stop or the run's end */
  controller: AbortController;
}

/** What a collector's counters continue from; the state of the others is a cache their next run rebuilds. */
export interface JobCheckpoint {
  state: unknown;
  collectingSince: Date;
}
