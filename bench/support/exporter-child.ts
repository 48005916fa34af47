/**
 * The exporter in a process of its own, holding nothing else, so that its
 * peak RSS is the exporter's. It is the daemon's own wiring (the collection
 * thread of CollectionHost, SelfMetrics, MetricsRenderer, the express
 * endpoints on this thread), without the cron schedule: the parent decides
 * when a collection round runs. The event-loop delay is this thread's: the
 * one that answers scrapes.
 *
 * Commands (IPC): round, advance (the clock), captureStart, baseline,
 * memory, gc (needs the child started with --expose-gc), loopDelayStart,
 * loopDelayStop, flushEvents, stop.
 * With otlp.activities or otlp.auditLogs on, the estate's events are
 * forwarded by an EstateEventForwarder wired as the daemon wires it. The baseline
 * fetches the pages of the captured round again with a bare undici client
 * (bench/support/bare-fetch.ts), for the overhead ratio.
 */
import { loopLatenessCommands } from './loop-lateness';
import { BroadcastChannel } from 'node:worker_threads';
import pino from 'pino';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import type { RunResult } from '../../src/scheduler/job';
import { CollectionHost } from '../../src/collection/host';
import type { RequestEvent } from '../../src/runtime';
import { ownedTargetNames } from '../../src/scheduler/sharding';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { createHttpApp } from '../../src/exporters/app';
import { closeServer, listen } from '../../src/exporters/listener';
import type { BaselineReport, Captured } from './bare-fetch';
import { CAPTURE_CHANNEL, type CaptureMessage } from './capture-channel';
import { childArgument, serve } from './ipc';

export interface ExporterChildOptions {
  /** the configuration, as a YAML file would give it (plain object) */
  config: unknown;
  /** keep the exporter's clock on the simulator's: an offset from real time (the `advance` command moves it with the simulator's) */
  clockOffsetMs?: number;
  logLevel?: string;
}

export interface ExporterHello {
  address: string;
  pid: number;
}

export interface RoundReport {
  seconds: number;
  /** CPU time of the exporter's process (user + system) during the round */
  cpuSeconds: number;
  results: RunResult[];
  /** requests the clients made (every attempt), by endpoint template */
  requests: number;
  byEndpoint: Record<string, number>;
  /** per collector: duration and result */
  collectors: Array<{ target: string; collector: string; seconds: number; ok: boolean; error?: string }>;
}

/** flushEvents: sending what is still queued, and the events dropped since start */
export interface FlushReport {
  seconds: number;
  cpuSeconds: number;
  dropped: number;
}

export interface MemoryReport {
  rss: number;
  /** peak resident set size of this process so far (bytes) */
  maxRss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** The daemon's self-metrics, also keeping the OTLP drops as a number for flushEvents. */
class CountingSelfMetrics extends SelfMetrics {
  droppedEvents = 0;
  /** requests per endpoint template, besides the self-metrics */
  byEndpoint = new Map<string, number>();

  override onRequest(event: RequestEvent): void {
    this.byEndpoint.set(event.endpoint, (this.byEndpoint.get(event.endpoint) ?? 0) + 1);
    super.onRequest(event);
  }

  override onOtlpDropped(signal: 'traces' | 'logs', count: number): void {
    this.droppedEvents += count;
    super.onOtlpDropped(signal, count);
  }
}

/**
 * The request capture in the collection thread (collection-capture.ts),
 * started and read over its channel; open before that thread starts, so that
 * its `ready` is not lost.
 */
function captureInCollectionThread(): { start(): Promise<void>; stop(): Promise<Captured[]> } {
  const channel = new BroadcastChannel(CAPTURE_CHANNEL);
  channel.unref();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let started: (() => void) | undefined;
  let stopped: ((captured: Captured[]) => void) | undefined;
  channel.onmessage = (event) => {
    const message = (event as { data: CaptureMessage }).data;
    if (message.command === 'ready') markReady();
    else if (message.command === 'started') started?.();
    else if (message.command === 'captured') stopped?.(message.captured);
  };
  // Each resolves on the collection thread's answer: a round asked for next starts only once capturing is on.
  return {
    start: async () => {
      await ready;
      await new Promise<void>((resolve) => {
        started = resolve;
        channel.postMessage({ command: 'start' } satisfies CaptureMessage);
      });
    },
    stop: () =>
      new Promise((resolve) => {
        stopped = resolve;
        channel.postMessage({ command: 'stop' } satisfies CaptureMessage);
      }),
  };
}

/** Wall and CPU seconds (user + system, the whole process) of `work`. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const result = await work();
  const cpu = process.cpuUsage(cpuBefore);
  return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

async function main(): Promise<void> {
  const options = childArgument<ExporterChildOptions>();
  const config: ExporterConfig = parseConfig(options.config);
  const logger = pino({ level: options.logLevel ?? 'warn' }, pino.destination(2));
  const self = new CountingSelfMetrics();
  const capture = captureInCollectionThread();
  const runtime = new CollectionHost(config, { logger, preload: [require.resolve('./collection-capture')], observer: self });
  runtime.advanceClock(options.clockOffsetMs ?? 0);
  const renderer = new MetricsRenderer(() => runtime.store, self, () => config.collection.staleAfter);
  const targetNames = ownedTargetNames(config);
  const app = createHttpApp({ renderer, store: () => runtime.store, targetNames: () => targetNames, isReady: () => runtime.firstRoundComplete(), logger });
  const server = await listen(app, config.web);
  const info = server.address() as { port: number };

  const store = runtime.store;

  serve(
    {
      round: async (): Promise<RoundReport> => {
        self.byEndpoint = new Map();
        const before = new Map(store.all().map((r) => [`${r.target}\u0000${r.collector}`, r.runs]));
        const { result: results, seconds, cpuSeconds } = await timed(() => runtime.runOnce());
        const collectors = store
          .all()
          .filter((r) => r.runs !== before.get(`${r.target}\u0000${r.collector}`))
          .map((r) => ({
            target: r.target,
            collector: r.collector,
            seconds: r.lastDurationSeconds ?? 0,
            ok: r.lastRunSucceeded === true,
            ...(r.lastRunSucceeded ? {} : { error: r.lastError ?? '' }),
          }));
        let requests = 0;
        for (const count of self.byEndpoint.values()) requests += count;
        return { seconds, cpuSeconds, results, requests, byEndpoint: Object.fromEntries(self.byEndpoint), collectors };
      },
      advance: (ms: number) => runtime.advanceClock(ms),
      captureStart: () => capture.start(),
      /** replays the captured requests `times` times; the fastest replay's figures */
      baseline: async (args: { times?: number } | undefined): Promise<BaselineReport | undefined> => {
        const captured = await capture.stop();
        // Loaded here, by exporter A alone: the replay's modules are the collection's (see capture-channel.ts).
        const { replay } = await import('./bare-fetch');
        let best: BaselineReport | undefined;
        for (let i = 0; i < (args?.times ?? 1); i++) {
          const result = await replay(captured, config);
          if (!best || result.seconds < best.seconds) best = result;
        }
        return best;
      },
      memory: (): MemoryReport => {
        const usage = process.memoryUsage();
        return { rss: usage.rss, maxRss: process.resourceUsage().maxRSS * 1024, heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers };
      },
      gc: (): MemoryReport => {
        const gc = (globalThis as { gc?: () => void }).gc;
        if (!gc) throw new Error('start the child with --expose-gc');
        gc();
        gc();
        const usage = process.memoryUsage();
        return { rss: usage.rss, maxRss: process.resourceUsage().maxRSS * 1024, heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers };
      },
      ...loopLatenessCommands(),
      /** the events still queued are sent as the collection thread stops (bounded in time) */
      flushEvents: async (): Promise<FlushReport> => {
        const { seconds, cpuSeconds } = await timed(() => runtime.stop());
        return { seconds, cpuSeconds, dropped: self.droppedEvents };
      },
      stop: async () => {
        await closeServer(server);
        await runtime.stop();
        setImmediate(() => process.exit(0));
      },
    },
    { address: `http://127.0.0.1:${info.port}`, pid: process.pid } satisfies ExporterHello,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
