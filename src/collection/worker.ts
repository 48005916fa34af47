/**
 * The collection thread: configuration, clients, scheduler, collectors, the
 * output check and the preparation of results run here, and only ready
 * results (gzip bytes, transferred) and what the serving thread publishes
 * about them cross to it (host.ts). Its heap has a ceiling of its own
 * (collection.heapLimit): a hostile upstream that exhausts it ends this
 * thread, which the serving thread restarts, never the scrapes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { deserialize, serialize } from 'node:v8';
import type { RequestObserver } from '../clients/http';
import type { LevelWithSilent } from 'pino';
import { createLogger } from '../util/logger';
import { ExporterRuntime, type Checkpoints } from '../runtime';
import type { StoreListener } from '../snapshot/store';
import type { JobCheckpoint } from '../scheduler/job';
import { forwarderFor } from '../otlp/forwarder';
import { startTracing, type Tracing } from '../tracing';
import { SPANS_STEP } from '../stop-deadline';
import { WorkerLink } from './link';
import { fromWire, type CheckpointBytes, type RequestEvent, type ToWorker, type WorkerStart } from './protocol';

/** Request events are sent in batches: a round sends thousands of requests, a message each would cost more than they say. */
const REQUEST_BATCH_MS = 100;

/** Collects the request events of the clients and sends them a batch at a time. */
class RequestBatch implements RequestObserver {
  private events: RequestEvent[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly link: WorkerLink) {}

  onRequest({ target, endpoint, code, durationSeconds }: RequestEvent): void {
    this.events.push({ target, endpoint, code, durationSeconds });
    this.timer ??= setTimeout(() => this.flush(), REQUEST_BATCH_MS);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.events.length > 0) this.link.send({ type: 'requests', events: this.events });
    this.events = [];
  }
}

/** Traces are a diagnostic: an SDK that cannot start must not keep collection from running. */
function tryStartTracing(start: WorkerStart): Tracing | undefined {
  try {
    return start.tracing ? startTracing(start.tracing) : undefined;
  } catch {
    return undefined;
  }
}

function checkpointsOf(saved: readonly CheckpointBytes[]): Checkpoints {
  const checkpoints: Checkpoints = new Map();
  for (const { target, collector, bytes } of saved) {
    const byCollector = checkpoints.get(target) ?? new Map();
    checkpoints.set(target, byCollector.set(collector, deserialize(bytes)));
  }
  return checkpoints;
}

/** Tells the serving thread of every change of this thread's store. */
function storeMirror(link: WorkerLink): StoreListener {
  return {
    // A new result's bytes move to the serving thread: this side never reads them again.
    changed: (record, resultChanged) =>
      resultChanged && record.result
        ? link.send({ type: 'record', record }, [record.result.bytes.buffer as ArrayBuffer])
        : link.send({ type: 'record', record: { ...record, result: undefined } }),
    removed: (target, collector) => link.send({ type: 'removed', target, collector }),
  };
}

function sendCheckpoint(link: WorkerLink, target: string, collector: string, checkpoint: JobCheckpoint): void {
  // A copy of its own, so that transferring it moves no other buffer with it.
  const bytes = new Uint8Array(serialize(checkpoint));
  link.send({ type: 'checkpoint', target, collector, bytes }, [bytes.buffer as ArrayBuffer]);
}

function run(port: NonNullable<typeof parentPort>, start: WorkerStart): void {
  const tracing = tryStartTracing(start);
  const link = new WorkerLink(port);
  const config = fromWire(start.config);
  const logger = createLogger(start.logLevel as LevelWithSilent, 1).child({ thread: 'collection' });
  // As on the serving thread (src/cli.ts): logged, not a crash of the thread.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  tracing?.reportTo((fields, message) => logger.warn(fields, message));
  const requests = new RequestBatch(link);
  let clockOffsetMs = start.clockOffsetMs ?? 0;
  const now = (): Date => new Date(Date.now() + clockOffsetMs);
  const events = forwarderFor(config, logger, (signal, count) => link.send({ type: 'otlpDropped', signal, count }), now);
  const runtime: ExporterRuntime = new ExporterRuntime(config, {
    logger,
    now,
    observer: requests,
    ...(events ? { onEvents: events.accept.bind(events) } : {}),
    storeListener: storeMirror(link),
    onFirstRound: () => link.send({ type: 'firstRound', complete: runtime.firstRoundComplete() }),
    // Counters go on where the thread before this one left them, their events each counted once.
    resumeFrom: checkpointsOf(start.checkpoints ?? []),
    onCheckpoint: (target, collector, checkpoint) => sendCheckpoint(link, target, collector, checkpoint),
  });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'schedule') return runtime.start();
    if (message.type === 'advanceClock') return void (clockOffsetMs += message.ms);
    if (message.type === 'runOnce') {
      return link.answer(message.id, async () => {
        const results = await runtime.runOnce();
        // The round's requests and its first-round news arrive before its answer.
        requests.flush();
        link.send({ type: 'firstRound', complete: runtime.firstRoundComplete() });
        return results;
      });
    }
    if (message.type === 'apply') {
      return link.answer(message.id, async () => {
        const change = await runtime.applyConfig(fromWire(message.config));
        for (const target of change.removed) events?.removeTarget(target);
        link.send({ type: 'firstRound', complete: runtime.firstRoundComplete() });
        return change;
      });
    }
    link.answer(message.id, async () => {
      await runtime.stop();
      requests.flush();
      const [, spansSent] = await Promise.all([events?.shutdown(message.flushMs), tracing?.shutdown(message.flushMs)]);
      return spansSent === false ? [SPANS_STEP] : [];
    });
  });
}

if (parentPort) run(parentPort, workerData as WorkerStart);
