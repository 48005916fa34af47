/**
 * The exporter in a process of its own, holding nothing else, so that its
 * peak RSS is the exporter's. It is the daemon's own wiring (ExporterRuntime,
 * SelfMetrics, MetricsRenderer, the express endpoints), without the cron
 * schedule: the parent decides when a collection round runs.
 *
 * Commands (IPC): round, captureStart, baseline, memory, gc, stop. The
 * baseline replays the requests a round made with a bare undici client, under
 * the same order constraints as the round (targets in parallel; within a
 * target, a collector's pages once the pages of the collectors it waits for
 * in a first round, its `after`, are fetched; the target's connection limit),
 * for the overhead ratio.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import { Pool } from 'undici';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { HttpCore, type HttpRequest, type HttpResponse, type RequestObserver } from '../../src/clients/http';
import { collectorsFor } from '../../src/collectors/registry';
import { CollectorJob, type RunResult } from '../../src/scheduler/job';
import { runInFirstRoundOrder } from '../../src/scheduler/first-round';
import { ExporterRuntime } from '../../src/runtime';
import { SelfMetrics } from '../../src/exporters/prometheus';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { createHttpApp } from '../../src/exporters/server';
import { closeServer, listen } from '../../src/exporters/http-server';
import { applyHeapPolicy } from '../../src/heap-policy';
import { childArgument, serve } from './ipc';

export interface ExporterChildOptions {
  /** the configuration, as a YAML file would give it (plain object) */
  config: unknown;
  /** keep the exporter's clock on the simulator's: a fixed offset from real time */
  clockOffsetMs?: number;
  logLevel?: string;
}

export interface ExporterHello {
  address: string;
  pid: number;
}

export interface RoundReport {
  seconds: number;
  results: RunResult[];
  /** requests the clients made (every attempt), by endpoint template */
  requests: number;
  byEndpoint: Record<string, number>;
  /** per collector: duration and result */
  collectors: Array<{ target: string; collector: string; seconds: number; ok: boolean; error?: string }>;
}

export interface MemoryReport {
  rss: number;
  /** peak resident set size of this process so far (bytes) */
  maxRss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface Captured {
  origin: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  target: string;
  collector: string;
}

async function main(): Promise<void> {
  applyHeapPolicy(); // as the daemon's entry point does
  const options = childArgument<ExporterChildOptions>();
  const config: ExporterConfig = parseConfig(options.config);
  const logger = pino({ level: options.logLevel ?? 'warn' }, pino.destination(2));
  const offset = options.clockOffsetMs ?? 0;

  // Requests counted per endpoint template, besides the self-metrics.
  let byEndpoint = new Map<string, number>();
  const self = new SelfMetrics();
  const observer: RequestObserver = {
    onRequest(event) {
      byEndpoint.set(event.endpoint, (byEndpoint.get(event.endpoint) ?? 0) + 1);
      self.onRequest(event);
    },
  };
  const runtime = new ExporterRuntime(config, { logger, observer, ...(offset ? { now: () => new Date(Date.now() + offset) } : {}) });
  const renderer = new MetricsRenderer(() => runtime.store, self, () => runtime.settings.staleAfter);
  const app = createHttpApp({ renderer, store: () => runtime.store, targetNames: () => runtime.targetNames(), isReady: () => runtime.firstRoundComplete(), logger });
  const server = await listen(app, config.web);
  const info = server.address() as { port: number };

  // While requests are captured, each is attributed to the collector whose run
  // sent it: the run's async context carries the collector's name down to the
  // HTTP core (the collectors of a target run at the same time in a first
  // round). Only then: on Node 20 an AsyncLocalStorage hooks every promise,
  // a cost the timed rounds must not carry.
  const store = runtime.store;
  let capture: Captured[] | undefined;
  const runningCollector = new AsyncLocalStorage<string>();
  const run = CollectorJob.prototype.run;
  CollectorJob.prototype.run = function (this: CollectorJob): Promise<RunResult> {
    return capture ? runningCollector.run(this.name, () => run.call(this)) : run.call(this);
  };
  const originByTarget = new Map(config.targets.map((target) => [target.name, new URL(target.url).origin]));
  const send = HttpCore.prototype.request;
  HttpCore.prototype.request = function (this: HttpCore, request: HttpRequest): Promise<HttpResponse> {
    if (capture) {
      const prefix = (this as unknown as { prefix: string }).prefix;
      capture.push({
        origin: originByTarget.get(this.target) ?? '',
        method: request.method,
        path: prefix + request.path,
        headers: { accept: 'application/json', ...request.headers },
        target: this.target,
        collector: runningCollector.getStore() ?? '?',
      });
    }
    return send.call(this, request);
  };

  serve(
    {
      round: async (): Promise<RoundReport> => {
        byEndpoint = new Map();
        const before = new Map(store.all().map((r) => [`${r.target}\u0000${r.collector}`, r.runs]));
        const started = performance.now();
        const results = await runtime.runOnce();
        const seconds = (performance.now() - started) / 1000;
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
        for (const count of byEndpoint.values()) requests += count;
        return { seconds, results, requests, byEndpoint: Object.fromEntries(byEndpoint), collectors };
      },
      captureStart: () => {
        capture = [];
      },
      /** replays the captured requests `times` times; the fastest replay's figures */
      baseline: async (args: { times?: number } | undefined) => {
        const captured = capture ?? [];
        capture = undefined;
        runningCollector.disable();
        let best: Awaited<ReturnType<typeof replay>> | undefined;
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
      stop: async () => {
        await closeServer(server);
        await runtime.stop();
        setImmediate(() => process.exit(0));
      },
    },
    { address: `http://127.0.0.1:${info.port}`, pid: process.pid } satisfies ExporterHello,
  );
}

/**
 * Fetches the pages a round fetched, with nothing but an undici Pool per
 * origin: the same per-target connection limit, targets in parallel, a
 * target's collectors in order. Serial listings are re-walked from their
 * BEGIN request (a queryState token is spent by its first use); logins are
 * left out (the captured tokens are still valid).
 */
async function replay(captured: Captured[], config: ExporterConfig): Promise<{ seconds: number; requests: number; bytes: number; byCollector: Record<string, number> }> {
  const byTarget = new Map<string, Map<string, Captured[]>>();
  for (const request of captured) {
    if (request.method !== 'GET') continue;
    const query = new URLSearchParams(request.path.split('?')[1] ?? '');
    const state = query.get('queryState');
    if (state !== null && state !== 'BEGIN') continue; // walked from its BEGIN
    let groups = byTarget.get(request.target);
    if (!groups) byTarget.set(request.target, (groups = new Map()));
    const list = groups.get(request.collector) ?? [];
    list.push(request);
    groups.set(request.collector, list);
  }
  let requests = 0;
  let bytes = 0;
  const byCollector: Record<string, number> = {};
  const pools: Pool[] = [];
  const started = performance.now();
  await Promise.all(
    [...byTarget].map(async ([targetName, groups]) => {
      const target = config.targets.find((t) => t.name === targetName);
      const limit = target?.maxConcurrency ?? 4;
      const origin = (groups.values().next().value as Captured[])[0]?.origin as string;
      const pool = new Pool(origin, { connections: limit, pipelining: 1 });
      pools.push(pool);
      const get = async (request: Captured, path: string): Promise<string> => {
        const response = await pool.request({ method: 'GET', path, headers: request.headers });
        const text = await response.body.text();
        requests += 1;
        bytes += Buffer.byteLength(text);
        return text;
      };
      const runCollector = async (collector: string, list: Captured[]): Promise<void> => {
        const collectorStarted = performance.now();
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < list.length) {
            const request = list[next++] as Captured;
            let text = await get(request, request.path);
            if (!/[?&]queryState=BEGIN/.test(request.path)) continue;
            const [pathname, search] = request.path.split('?') as [string, string];
            const pageSize = new URLSearchParams(search).get('pageSize') ?? '';
            for (;;) {
              const token = (JSON.parse(text) as { page?: { queryState?: string } }).page?.queryState;
              if (!token || token === 'END') break;
              text = await get(request, `${pathname}?pageSize=${encodeURIComponent(pageSize)}&queryState=${encodeURIComponent(token)}`);
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
        byCollector[`${targetName}/${collector}`] = (performance.now() - collectorStarted) / 1000;
      };
      // As in the round: a collector's pages once those of the collectors it waits for (`after`) are fetched.
      const definitions = collectorsFor(target?.kind ?? 'management');
      const rank = (collector: string): number => definitions.findIndex((definition) => definition.name === collector);
      await runInFirstRoundOrder(
        [...groups].sort(([a], [b]) => rank(a) - rank(b)), // registry order: `after` names earlier collectors
        ([collector]) => definitions[rank(collector)],
        ([collector, list]) => runCollector(collector, list),
      );
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pools.map((pool) => pool.close()));
  return { seconds, requests, bytes, byCollector };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
