/**
 * What a scrape of /metrics serves: each record's latest complete result,
 * whole (never a mix of two results, never a result in the making), the same
 * text with and without gzip, nothing of a record that turned stale; each
 * result's bytes as they were prepared, however often it is served.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { gunzipSync } from 'node:zlib';
import type { RequestListener, Server } from 'node:http';
import { Agent, request } from 'undici';
import pino from 'pino';
import type { Sample } from '../../src/collectors/types';
import { parseConfig } from '../../src/config/load';
import { closeServer, listen } from '../../src/exporters/listener';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { TURN_BYTES, createHttpApp } from '../../src/exporters/app';
import { SnapshotStore } from '../../src/snapshot/store';
import { prepareResult } from '../../src/exporters/prepared';
import { silentLogger } from '../support/collect';

const SERIES = 6_000;
const STALE_AFTER_MS = 600_000;
/** The web settings of a configuration with target t, on a free loopback port. */
const LOOPBACK_WEB = parseConfig({
  web: { listenAddress: '127.0.0.1', port: 0 },
  targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }],
}).web;

/** `count` asset size series, every one with the value `version`. */
function result(count: number, version: number): Sample[] {
  return Array.from({ length: count }, (_, i) => ({
    name: 'dataprotect_asset_size_bytes' as const,
    labels: { target: 't', asset_id: `a${i}`, asset_name: `asset ${i}`, asset_type: 'VM', policy: 'gold' },
    value: version,
  }));
}

function publish(store: SnapshotStore, samples: Sample[], endedAt = Date.now()): void {
  store.runStarted('t', 'assets');
  store.runFinished('t', 'assets', { ok: true, durationSeconds: 1, endedAt, result: prepareResult({ samples, histograms: [] }) });
}

/** The set of values of the asset size series in a body, and how many there are. */
function versionsIn(text: string): { values: Set<string>; count: number } {
  const lines = text.split('\n').filter((line) => line.startsWith('dataprotect_asset_size_bytes{'));
  return { values: new Set(lines.map((line) => line.slice(line.lastIndexOf(' ') + 1))), count: lines.length };
}

async function renderedText(renderer: MetricsRenderer): Promise<string> {
  return gunzipSync(Buffer.concat(await renderer.renderChunks())).toString('utf8');
}

describe('MetricsRenderer', () => {
  let store: SnapshotStore;
  let renderer: MetricsRenderer;

  beforeEach(() => {
    store = new SnapshotStore();
    store.register('t', 'management', 'assets', 120);
    renderer = new MetricsRenderer(() => store, new SelfMetrics({ processMetrics: false }), () => STALE_AFTER_MS);
  });

  it('serves a new result on the next scrape, and the last complete one while a run is under way', async () => {
    publish(store, result(SERIES, 1));
    expect(versionsIn(await renderedText(renderer))).toEqual({ values: new Set(['1']), count: SERIES });
    publish(store, result(SERIES, 2));
    expect(versionsIn(await renderedText(renderer))).toEqual({ values: new Set(['2']), count: SERIES });
    store.runStarted('t', 'assets');
    expect(versionsIn(await renderedText(renderer))).toEqual({ values: new Set(['2']), count: SERIES });
  });

  it('gives the same text as render()', async () => {
    publish(store, result(50, 1));
    const text = await renderedText(renderer);
    expect(await renderer.render()).toBe(text);
    expect(text).toContain('# TYPE dataprotect_asset_size_bytes gauge\n');
  });

  it('serves a result as the bytes it was prepared as: later scrapes slice the same memory until a new result comes', async () => {
    publish(store, result(50, 1));
    const dataOf = async (): Promise<Buffer | undefined> =>
      (await renderer.renderChunks()).find((chunk) => gunzipSync(chunk).toString('utf8').startsWith('dataprotect_asset_size_bytes{'));
    const first = await dataOf();
    const stored = store.get('t', 'assets')?.result?.bytes;
    expect(first?.buffer).toBe(stored?.buffer);
    expect((await dataOf())?.buffer).toBe(stored?.buffer);
    publish(store, result(50, 2));
    expect((await dataOf())?.buffer).not.toBe(stored?.buffer);
  });

  it('renders a scrape in three parts, each after the timers due while the part before it ran', async () => {
    const order: string[] = [];
    /** A part of the rendering that takes 3 ms and meanwhile arms a timer, due before the part ends. */
    const slowPart = (name: string): void => {
      order.push(name);
      setTimeout(() => order.push(`timer armed in ${name}`), 0);
      const until = performance.now() + 3;
      while (performance.now() < until);
    };
    const self = new SelfMetrics({ processMetrics: false });
    const prepared = self.prepared.bind(self);
    jest.spyOn(self, 'prepared').mockImplementation((target) => {
      slowPart('self-metrics');
      return prepared(target);
    });
    const processMetrics = self.processRegistry.metrics.bind(self.processRegistry);
    jest.spyOn(self.processRegistry, 'metrics').mockImplementation(() => {
      order.push('process metrics');
      return processMetrics();
    });
    const readStore = (): SnapshotStore => {
      slowPart('store');
      return store;
    };
    publish(store, result(50, 1));
    const renderer = new MetricsRenderer(readStore, self, () => STALE_AFTER_MS);
    const app = createHttpApp({ renderer, store: () => store, targetNames: () => ['t'], isReady: () => true, logger: silentLogger });
    // As a scrape runs: from the request's I/O callback, where a first immediate runs before the loop's timers.
    const server = await listen(app, LOOPBACK_WEB);
    try {
      const response = await request(`http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`);
      expect(versionsIn(await response.body.text()).count).toBe(50);
    } finally {
      await closeServer(server);
    }
    expect(order).toEqual(['self-metrics', 'timer armed in self-metrics', 'store', 'timer armed in store', 'process metrics']);
  });

  it('serves nothing of a record that turned stale', async () => {
    let now = 1_000_000;
    const clockRenderer = new MetricsRenderer(() => store, new SelfMetrics({ processMetrics: false }), () => STALE_AFTER_MS, () => now);
    publish(store, result(SERIES, 1), now);
    expect(versionsIn(await renderedText(clockRenderer)).count).toBe(SERIES);
    now += 120_000 + STALE_AFTER_MS + 10; // its next run (every 120 s) never came, and staleAfter passed
    expect(versionsIn(await renderedText(clockRenderer)).count).toBe(0);
    expect(versionsIn(await renderedText(clockRenderer)).count).toBe(0);
  });

  it('keeps a target up while one endpoint fails and others answer, whichever run ended last; down once none answers', async () => {
    store.register('t', 'management', 'audit-logs', 60);
    const up = async (): Promise<string | undefined> => /^dataprotect_up\{[^}]*\} (\d)$/m.exec(await renderedText(renderer))?.[1];
    const fails = (collector: string, endedAt: number): void =>
      store.runFinished('t', collector, { ok: false, durationSeconds: 1, endedAt, error: 'HTTP 500', unreachable: true });
    const succeeds = (collector: string, endedAt: number): void =>
      store.runFinished('t', collector, { ok: true, durationSeconds: 1, endedAt, result: prepareResult({ samples: [] }) });
    fails('audit-logs', 1_000);
    succeeds('assets', 2_000);
    expect(await up()).toBe('1');
    fails('audit-logs', 3_000); // the failing endpoint's run ends last
    expect(await up()).toBe('1');
    succeeds('assets', 4_000);
    expect(await up()).toBe('1');
    // the source goes: a run of every collector fails to reach it
    fails('assets', 5_000);
    expect(await up()).toBe('0');
    store.runFinished('t', 'audit-logs', { ok: false, durationSeconds: 1, endedAt: 6_000, error: 'bad JSON', unreachable: false });
    expect(await up()).toBe('1'); // an answer, however bad, is the source answering
  });
});

describe('scrapes over HTTP while results are published', () => {
  let store: SnapshotStore;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    store = new SnapshotStore();
    store.register('t', 'management', 'assets', 120);
    const renderer = new MetricsRenderer(() => store, new SelfMetrics({ processMetrics: false }), () => STALE_AFTER_MS);
    const app = createHttpApp({ renderer, store: () => store, targetNames: () => ['t'], isReady: () => true, logger: silentLogger });
    server = await listen(app, LOOPBACK_WEB);
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    if (server) await closeServer(server);
  });

  it('every scrape sees one whole result, and the last one in the end', async () => {
    publish(store, result(SERIES, 0));
    const agent = new Agent({ connections: 2 });
    const seen: Array<{ values: Set<string>; count: number }> = [];
    const scrape = async (gzip: boolean): Promise<void> => {
      const response = await request(`${base}/metrics`, { dispatcher: agent, headers: gzip ? { 'accept-encoding': 'gzip' } : {}, signal: AbortSignal.timeout(10_000) });
      const body = Buffer.from(await response.body.arrayBuffer());
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBe(gzip ? 'gzip' : undefined);
      seen.push(versionsIn((gzip ? gunzipSync(body) : body).toString('utf8')));
    };
    // Two scrapers (an HA pair), each result published while their scrapes are in flight.
    for (let version = 1; version <= 6; version++) {
      const scrapes = [scrape(true), scrape(false)];
      publish(store, result(SERIES, version));
      await Promise.all(scrapes);
    }
    await scrape(true);
    await agent.close();

    expect(seen).toHaveLength(13);
    for (const scrape of seen) {
      expect(scrape.count).toBe(SERIES);
      expect(scrape.values.size).toBe(1);
    }
    expect(seen.at(-1)?.values).toEqual(new Set(['6']));
  });
});

describe('a large exposition over HTTP', () => {
  const ASSETS = 60_000;
  let store: SnapshotStore;
  let renderer: MetricsRenderer;
  let server: Server;
  let base: string;
  /** the bytes of each write to a response, by the turn of the event loop it was made in */
  const writesByTurn = new Map<number, number[]>();
  /** each response's bytes written, and its writes after it closed */
  const responses: Array<{ bytes: number; writesAfterClose: number; closed: Promise<void> }> = [];
  let turn = 0;
  let counting = false;
  /** what the app logged at level error */
  const errors: string[] = [];
  const countTurns = (): void => {
    turn += 1;
    if (counting) setImmediate(countTurns);
  };

  beforeAll(async () => {
    store = new SnapshotStore();
    store.register('t', 'management', 'assets', 120);
    // Names that do not compress: the gzip body is megabytes, as an estate of tens of thousands of assets gives.
    publish(store, result(ASSETS, 1).map((sample) => ({ ...sample, labels: { ...sample.labels, asset_name: randomBytes(24).toString('hex') } })));
    renderer = new MetricsRenderer(() => store, new SelfMetrics({ processMetrics: false }), () => STALE_AFTER_MS);
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
    const app = createHttpApp({ renderer, store: () => store, targetNames: () => ['t'], isReady: () => true, logger });
    const listener: RequestListener = (req, res) => {
      const write = res.write.bind(res) as (chunk: Buffer) => boolean;
      let closed = false;
      const response = { bytes: 0, writesAfterClose: 0, closed: once(res, 'close').then(() => void (closed = true)) };
      responses.push(response);
      res.write = ((chunk: Buffer) => {
        writesByTurn.set(turn, [...(writesByTurn.get(turn) ?? []), chunk.length]);
        response.bytes += chunk.length;
        if (closed) response.writesAfterClose += 1;
        return write(chunk);
      }) as typeof res.write;
      app(req, res);
    };
    server = await listen(listener, LOOPBACK_WEB);
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    counting = false;
    if (server) await closeServer(server);
  });

  it('is written a turn of the event loop at a time, whole', async () => {
    counting = true;
    countTurns();
    const response = await request(`${base}/metrics`, { headers: { 'accept-encoding': 'gzip' }, signal: AbortSignal.timeout(20_000) });
    const body = Buffer.from(await response.body.arrayBuffer());
    counting = false;

    expect(response.statusCode).toBe(200);
    expect(Number(response.headers['content-length'])).toBe(body.length);
    expect(versionsIn(gunzipSync(body).toString('utf8')).count).toBe(ASSETS);
    expect(body.length).toBeGreaterThan(4 * TURN_BYTES);
    const turns = [...writesByTurn.values()];
    expect(turns.reduce((sum, writes) => sum + writes.reduce((a, b) => a + b, 0), 0)).toBe(body.length);
    // A turn stops writing once it has written TURN_BYTES: all but its last write come to less.
    for (const writes of turns) expect(writes.slice(0, -1).reduce((a, b) => a + b, 0)).toBeLessThan(TURN_BYTES);
    // Members are smaller than a turn's bytes, so that no turn writes twice as much.
    for (const writes of turns) expect(writes.reduce((a, b) => a + b, 0)).toBeLessThan(2 * TURN_BYTES);
  });

  it.each([true, false])('stops for a scraper that goes away mid-body (gzip: %s), logs no error, and serves the next one whole', async (gzip) => {
    const headers = gzip ? { 'accept-encoding': 'gzip' } : {};
    const controller = new AbortController();
    const response = await request(`${base}/metrics`, { headers, signal: controller.signal });
    const sending = responses.at(-1);
    response.body.on('error', () => undefined);
    const received = await new Promise<number>((resolve) => {
      response.body.once('data', (chunk: Buffer) => {
        controller.abort();
        resolve(chunk.length);
      });
    });
    expect(received).toBeGreaterThan(0);
    await sending?.closed;
    const whole = Buffer.concat(await renderer.renderChunks());
    expect(sending?.bytes).toBeLessThan(gzip ? whole.length : gunzipSync(whole).length);
    expect(sending?.writesAfterClose).toBe(0);

    const next = await request(`${base}/metrics`, { headers, signal: AbortSignal.timeout(20_000) });
    const body = Buffer.from(await next.body.arrayBuffer());
    expect(next.statusCode).toBe(200);
    expect(versionsIn((gzip ? gunzipSync(body) : body).toString('utf8')).count).toBe(ASSETS);
    expect(errors).toEqual([]);
  });
});
