/**
 * The collection thread: all but serving runs here, and only ready results (gzip bytes, transferred) and their status cross to host.ts.
 * A hostile upstream that exhausts its heap ceiling (collection.heapLimit) ends this thread, which host.ts restarts, never the scrapes.
 */
import { parentPort, workerData, type MessagePort, type Transferable } from 'node:worker_threads';
import { deserialize, serialize } from 'node:v8';
import type { LevelWithSilent } from 'pino';
import { createLogger } from '../util/logger';
import { ExporterRuntime, type Checkpoints, type CollectionObserver, type RequestEvent } from '../runtime';
import { startTracing } from '../tracing';
import { fromWire, type CheckpointBytes, type FromWorker, type ToWorker, type WorkerStart } from './protocol';

/** Request events are sent in batches: a round sends thousands of requests, a message each would cost more than they say. */
const REQUEST_BATCH_MS = 100;

type Send = (message: FromWorker, transfer?: readonly Transferable[]) => void;

/** The self-metrics' news, sent across: the request events a batch at a time. */
class ObserverAcross implements CollectionObserver {
  private events: RequestEvent[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly send: Send) {}

  onRequest({ target, endpoint, code, durationSeconds }: RequestEvent): void {
    this.events.push({ target, endpoint, code, durationSeconds });
    this.timer ??= setTimeout(() => this.flush(), REQUEST_BATCH_MS);
  }

  onOtlpDropped(signal: 'traces' | 'logs', count: number): void {
    this.send({ type: 'otlpDropped', signal, count });
  }

  onOtlpOutstanding(signal: 'traces' | 'logs', count: number): void {
    this.send({ type: 'otlpOutstanding', signal, count });
  }

  recordFirstRound(complete: boolean): void {
    // The requests of the round come first.
    this.flush();
    this.send({ type: 'firstRound', complete });
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.events.length > 0) this.send({ type: 'requests', events: this.events });
    this.events = [];
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

function run(port: MessagePort, start: WorkerStart): void {
  // The serving thread has told why an SDK did not start.
  const tracing = start.tracing && startTracing(start.tracing);
  const send: Send = (message, transfer = []) => port.postMessage(message, transfer);
  const logger = createLogger(start.logLevel as LevelWithSilent, 1).child({ thread: 'collection' });
  // As on the serving thread (src/cli.ts): logged, not a crash of the thread.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  tracing?.reportTo((fields, message) => logger.warn(fields, message));
  const observer = new ObserverAcross(send);
  let clockOffsetMs = start.clockOffsetMs ?? 0;
  const runtime = new ExporterRuntime(fromWire(start.config), {
    logger,
    now: () => new Date(Date.now() + clockOffsetMs),
    observer,
    storeListener: {
      // A new result's bytes move to the serving thread: this side never reads them again.
      changed: (record, resultChanged) =>
        resultChanged && record.result
          ? send({ type: 'record', record }, [record.result.bytes.buffer as ArrayBuffer])
          : send({ type: 'record', record: { ...record, result: undefined } }),
      removed: (target, collector) => send({ type: 'removed', target, collector }),
    },
    tracing,
    // Counters go on where the thread before this one left them, their events each counted once.
    resumeFrom: checkpointsOf(start.checkpoints ?? []),
    onCheckpoint: (target, collector, checkpoint) => {
      // A copy of its own, so that transferring it moves no other buffer with it.
      const bytes = new Uint8Array(serialize(checkpoint));
      send({ type: 'checkpoint', target, collector, bytes }, [bytes.buffer as ArrayBuffer]);
    },
  });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'schedule') return runtime.start();
    if (message.type === 'advanceClock') return void (clockOffsetMs += message.ms);
    const work: Promise<Extract<FromWorker, { type: 'reply' }>['value']> =
      message.type === 'runOnce'
        ? runtime.runOnce()
        : message.type === 'apply'
          ? runtime.applyConfig(fromWire(message.config))
          : runtime.stop(message.budgetMs);
    // The call's requests arrive before its answer.
    work.finally(() => observer.flush()).then(
      (value) => send({ type: 'reply', id: message.id, value }),
      (error: unknown) => send({ type: 'reply', id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

if (parentPort) run(parentPort, workerData as WorkerStart);
