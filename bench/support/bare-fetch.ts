/**
 * The overhead ratio's baseline: the requests of one collection round
 * captured inside the exporter's process, then fetched again with nothing
 * but an undici Pool per origin. The ratio of the exporter's cold round to
 * this bare fetch is what the exporter adds to the time the APIs take.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Pool } from 'undici';
import type { ExporterConfig } from '../../src/config/load';
import { HttpCore, type HttpRequest, type HttpResponse } from '../../src/clients/http';
import { COLLECTORS } from '../../src/collectors/registry';
import { CollectorJob, type RunResult } from '../../src/scheduler/job';
import { runInFirstRoundOrder } from '../../src/scheduler/first-round';

export interface Captured {
  origin: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  target: string;
  collector: string;
}

export interface BaselineReport {
  seconds: number;
  requests: number;
  bytes: number;
  /** seconds per target/collector, to compare with the round's collectors */
  byCollector: Record<string, number>;
}

export interface RequestCapture {
  start(): void;
  /** stops capturing and returns what was captured */
  stop(): Captured[];
}

/**
 * Captures the requests the exporter's clients send, each attributed to the
 * collector whose run sent it: the run's async context carries the
 * collector's name down to the HTTP core (the collectors of a target run at
 * the same time in a first round). Only while started: on Node 20 an
 * AsyncLocalStorage hooks every promise, a cost the timed rounds must not
 * carry.
 */
export function installRequestCapture(config: ExporterConfig): RequestCapture {
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
  return {
    start: () => {
      capture = [];
    },
    stop: () => {
      const captured = capture ?? [];
      capture = undefined;
      runningCollector.disable();
      return captured;
    },
  };
}

/**
 * Fetches the pages a round fetched, with nothing but an undici Pool per
 * origin: the same per-target connection limit, targets in parallel, a
 * target's collectors in order. Serial listings are re-walked from their
 * BEGIN request (a queryState token is spent by its first use); logins are
 * left out (the captured tokens are still valid).
 */
export async function replay(captured: Captured[], config: ExporterConfig): Promise<BaselineReport> {
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
      const definitions = COLLECTORS[target?.kind ?? 'management'];
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

