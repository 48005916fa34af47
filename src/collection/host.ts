/**
 * The serving thread's side of collection: runs the collection thread (worker.ts) under its heap ceiling, mirrors its reports into a
 * store, and restarts it with back-off when it dies; meanwhile scrapes serve the last results as usual and its collectors report failure.
 */
import { Worker } from 'node:worker_threads';
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import type { ExporterConfig } from '../config/load';
import type { RunResult } from '../scheduler/job';
import { SnapshotStore } from '../snapshot/store';
import { ownedTargetNames, ownedTargets } from '../scheduler/sharding';
import type { Collection, CollectionObserver, ConfigChange } from '../runtime';
import { configChange } from '../config/fingerprint';
import type { TracingPlan } from '../tracing';
import { COLLECTION_STOP_STEP, STOP_DEADLINE_MS } from '../stop-deadline';
import { settlesWithin } from '../util/settles-within';
import { toWire, type CheckpointBytes, type FromWorker, type ToWorker, type WorkerStart } from './protocol';

/** 16 MB semi-spaces for the collection heap, so that a round's short-lived JSON dies young rather than being promoted (V8's young
 * generation: two semi-spaces and a new large-object space of one's size). Not a process flag: that would set the serving thread's
 * too, which V8 sizes small from the container's memory. */
const COLLECTION_YOUNG_GENERATION_MB = 48;

const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5 * 60_000;

/** Why the collection thread ended without being asked to (the reason label of dataprotect_exporter_collection_restarts_total). */
export type RestartReason = 'out_of_memory' | 'crash' | 'exit';

/** The calls among the messages (each member of the union that has an `id`), without it. */
type CallOf<T> = T extends { id: number } ? Omit<T, 'id'> : never;

/** What a call gets when the collection thread ends before it answers. */
class CollectionStopped extends Error {
  constructor() {
    super('the collection thread stopped');
  }
}

/** Loads worker.js beside this one, or worker.ts (tsx, ts-jest) via tsx's require hook; run from source, as execArgv brings no loader. */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.loader) require(workerData.loader);
for (const module of workerData.preload ?? []) require(module);
require(workerData.entry);
`;

const extension = extname(__filename);
const WORKER_ENTRY = { entry: join(__dirname, `worker${extension}`), loader: extension === '.ts' ? require.resolve('tsx/cjs') : undefined };

export class CollectionHost implements Collection {
  readonly store = new SnapshotStore();
  private worker: Worker | undefined;
  /** the calls the running thread has yet to answer, by id */
  private readonly calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextCallId = 0;
  private firstRoundDone = false;
  private scheduling = false;
  private stopping = false;
  private backoffMs = FIRST_BACKOFF_MS;
  /** how far advanceClock moved the collection clock: a restarted thread keeps it */
  private clockOffsetMs = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  /** The last checkpoint of each event-counting job, for the next thread; a reload drops those of a target it removes or restarts. */
  private readonly checkpoints = new Map<string, Map<string, CheckpointBytes>>();
  private lastError: Error | undefined;
  /** the estate's events the collection thread holds for OTLP, as it last said */
  private readonly otlpOutstanding = new Map<'traces' | 'logs', number>();

  constructor(
    private config: ExporterConfig,
    private readonly deps: {
      logger: Logger;
      tracing?: TracingPlan;
      /** modules the collection thread loads first (the bench's instrumentation) */
      preload?: string[];
      observer: CollectionObserver & { onCollectionRestart(reason: RestartReason): void };
    },
  ) {
    this.spawn();
  }

  firstRoundComplete(): boolean {
    return this.firstRoundDone;
  }

  /** Collection.start, and again in every thread that replaces a dead one. */
  start(): void {
    this.scheduling = true;
    this.worker?.postMessage({ type: 'schedule' } satisfies ToWorker);
  }

  /** Moves the collection clock ahead of real time, in this thread and the next ones (the bench follows its simulator's). */
  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
    this.worker?.postMessage({ type: 'advanceClock', ms } satisfies ToWorker);
  }

  runOnce(): Promise<RunResult[]> {
    return this.call<RunResult[]>({ type: 'runOnce' });
  }

  /** While the collection thread is down (or dies meanwhile), the next one starts with it, its heap ceiling included. */
  async applyConfig(next: ExporterConfig): Promise<ConfigChange> {
    const change = configChange(this.config, next);
    this.config = next;
    // The jobs of these start afresh, and so does a collector disabled now, if it is enabled again.
    for (const target of [...change.removed, ...change.restarted]) this.checkpoints.delete(target);
    for (const target of next.targets) {
      for (const [collector, settings] of Object.entries(target.collectors)) {
        if (settings?.enabled === false) this.checkpoints.get(target.name)?.delete(collector);
      }
    }
    const applied = await this.call({ type: 'apply', config: toWire(next) }).then(
      () => true,
      (error: Error) => {
        if (!(error instanceof CollectionStopped)) throw error;
        return false;
      },
    );
    // With no thread to report it (down, or ended meanwhile), what the reload removed leaves the scrapes now, not at the next thread,
    // and a restarted target's old series and counters go, as a running thread's restart of it drops them.
    if (!applied) for (const target of change.restarted) this.store.removeTarget(target);
    this.forgetWhatIsNotCollected();
    return change;
  }

  /** Ends the collection thread at once, as a crash would: for tests of the restart. */
  async interrupt(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Collection.stop in the collection thread; after `budgetMs` the thread is ended, whatever it was doing. */
  async stop(budgetMs = STOP_DEADLINE_MS): Promise<string[]> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return [];
    let cutShort: string[] = [];
    const stopped = this.call<string[]>({ type: 'stop', budgetMs }).then((steps) => void (cutShort = steps));
    // Ended at the budget, the thread's logouts, last events and spans are lost: the exit says so.
    if (!(await settlesWithin(stopped, budgetMs))) cutShort = [COLLECTION_STOP_STEP];
    await worker.terminate();
    return cutShort;
  }

  /** Asks the running thread; rejects with CollectionStopped when there is none or it ends before it answers. */
  private call<T>(message: CallOf<ToWorker>): Promise<T> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new CollectionStopped());
    const id = this.nextCallId++;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...message, id });
    });
  }

  private spawn(): void {
    const start: WorkerStart = {
      config: toWire(this.config),
      logLevel: this.deps.logger.level,
      tracing: this.deps.tracing,
      preload: this.deps.preload,
      checkpoints: [...this.checkpoints.values()].flatMap((byCollector) => [...byCollector.values()]),
      clockOffsetMs: this.clockOffsetMs,
    };
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { ...start, ...WORKER_ENTRY },
      resourceLimits: {
        maxOldGenerationSizeMb: Math.floor(this.config.collection.heapLimit / 1024 ** 2),
        maxYoungGenerationSizeMb: COLLECTION_YOUNG_GENERATION_MB,
      },
    });
    this.worker = worker;
    this.lastError = undefined;
    this.firstRoundDone = false;
    this.forgetWhatIsNotCollected();
    worker.on('message', (message: FromWorker) => this.receive(message));
    worker.on('error', (error) => (this.lastError = error));
    worker.on('exit', (code) => this.exited(worker, code));
    // The listening server keeps the daemon alive; a start that fails to listen must end the process.
    worker.unref();
    if (this.scheduling) this.start();
  }

  /** Targets and collectors the configuration removed or disabled, and a target's whose kind it changed: no thread reports them again. */
  private forgetWhatIsNotCollected(): void {
    const owned = new Map(ownedTargets(this.config).map((target) => [target.name, target]));
    for (const record of this.store.all()) {
      const target = owned.get(record.target);
      const kept = target?.kind === record.kind && target.collectors[record.collector]?.enabled !== false;
      if (!kept) this.store.remove(record.target, record.collector);
    }
  }

  private receive(message: FromWorker): void {
    const { observer } = this.deps;
    if (message.type === 'record') this.store.mirror(message.record);
    else if (message.type === 'removed') this.store.remove(message.target, message.collector);
    else if (message.type === 'requests') message.events.forEach((event) => observer.onRequest(event));
    else if (message.type === 'otlpDropped') observer.onOtlpDropped(message.signal, message.count);
    else if (message.type === 'otlpOutstanding') this.otlpOutstanding.set(message.signal, message.count);
    else if (message.type === 'checkpoint') this.keepCheckpoint(message);
    else if (message.type === 'reply') {
      const call = this.calls.get(message.id);
      this.calls.delete(message.id);
      if (message.error !== undefined) call?.reject(new Error(message.error));
      else call?.resolve(message.value);
    } else {
      this.firstRoundDone = message.complete;
      // A thread that finished its first round works: its next death starts the back-off afresh.
      if (message.complete) this.backoffMs = FIRST_BACKOFF_MS;
      observer.recordFirstRound(message.complete);
    }
  }

  private keepCheckpoint({ target, collector, bytes }: CheckpointBytes): void {
    if (!ownedTargetNames(this.config).includes(target)) return;
    const byCollector = this.checkpoints.get(target) ?? new Map<string, CheckpointBytes>();
    this.checkpoints.set(target, byCollector.set(collector, { target, collector, bytes }));
  }

  private exited(worker: Worker, code: number): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    for (const call of this.calls.values()) call.reject(new CollectionStopped());
    this.calls.clear();
    if (this.stopping) return;
    const error = this.lastError as (Error & { code?: string }) | undefined;
    const reason: RestartReason = error?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out_of_memory' : error ? 'crash' : 'exit';
    this.store.collectionLost(`the collection thread stopped (${reason.replace(/_/g, ' ')})`, Date.now());
    // The next thread resumes after the runs that queued them: they are lost, and counted so.
    for (const [signal, count] of this.otlpOutstanding) if (count > 0) this.deps.observer.onOtlpDropped(signal, count);
    this.otlpOutstanding.clear();
    this.firstRoundDone = false;
    this.deps.observer.recordFirstRound(false);
    this.deps.observer.onCollectionRestart(reason);
    this.deps.logger.error({ reason, code, err: error, restartInMs: this.backoffMs }, 'the collection thread stopped; restarting it');
    this.restartTimer = setTimeout(() => this.spawn(), this.backoffMs).unref();
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
  }
}
