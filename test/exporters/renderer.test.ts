/**
 * What a scrape of /metrics serves: each record's latest complete result,
 * whole (never a mix of two results, never a result in the making), the same
 * bytes with and without gzip, nothing of a record that turned stale; each
 * result formatted once however often it is served.
 */
import { gunzipSync } from 'node:zlib';
import type { Server } from 'node:http';
import { Agent, request } from 'undici';
import type { Sample } from '../../src/collectors/types';
import { parseConfig } from '../../src/config/load';
import { closeServer, listen } from '../../src/exporters/listener';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { createHttpApp } from '../../src/exporters/app';
import { SnapshotStore } from '../../src/snapshot/store';
import * as format from '../../src/exporters/format';
import { METRIC_FAMILIES } from '../../src/metrics/catalog';
import { silentLogger } from '../support/collect';
import { workPerTurn } from '../support/turns';

const SERIES = 6_000;
const STALE_AFTER_MS = 600_000;

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
  store.runFinished('t', 'assets', { ok: true, durationSeconds: 1, endedAt, samples, histograms: [] });
}

/** The set of values of the asset size series in a body, and how many there are. */
function versionsIn(text: string): { values: Set<string>; count: number } {
  const lines = text.split('\n').filter((line) => line.startsWith('dataprotect_asset_size_bytes{'));
  return { values: new Set(lines.map((line) => line.slice(line.lastIndexOf(' ') + 1))), count: lines.length };
}

async function renderedText(renderer: MetricsRenderer, encoding: 'identity' | 'gzip'): Promise<string> {
  const body = Buffer.concat(await renderer.renderChunks(encoding));
  return (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
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
    expect(versionsIn(await renderedText(renderer, 'gzip'))).toEqual({ values: new Set(['1']), count: SERIES });
    publish(store, result(SERIES, 2));
    expect(versionsIn(await renderedText(renderer, 'gzip'))).toEqual({ values: new Set(['2']), count: SERIES });
    store.runStarted('t', 'assets');
    expect(versionsIn(await renderedText(renderer, 'identity'))).toEqual({ values: new Set(['2']), count: SERIES });
  });

  it('prepares a large result over many event-loop turns: a scrape waiting for it holds no one else', async () => {
    const total = 5 * SERIES;
    publish(store, result(total, 3));
    const formatting = jest.spyOn(format, 'formatSample');
    try {
      const turns = workPerTurn(() => formatting.mock.calls.length);
      const text = await renderedText(renderer, 'gzip');
      const formattedPerTurn = turns.stop();
      expect(versionsIn(text)).toEqual({ values: new Set(['3']), count: total });
      expect(formatting.mock.calls.length).toBeGreaterThanOrEqual(total);
      expect(Math.max(...formattedPerTurn)).toBeLessThanOrEqual(total / 5);
    } finally {
      formatting.mockRestore();
    }
  });

  it('hands the loop over within a result of many small families too', async () => {
    // 30 families of 1,000 series: none alone is large, together they are
    const families = METRIC_FAMILIES.filter((family) => family.type === 'gauge').slice(0, 30);
    expect(families).toHaveLength(30);
    const samples: Sample[] = families.flatMap((family) => result(1_000, 1).map((sample) => ({ ...sample, name: family.name as Sample['name'] })));
    publish(store, samples);
    const formatting = jest.spyOn(format, 'formatSample');
    try {
      const turns = workPerTurn(() => formatting.mock.calls.length);
      await renderer.renderChunks('gzip');
      expect(Math.max(...turns.stop())).toBeLessThanOrEqual(samples.length / 5);
    } finally {
      formatting.mockRestore();
    }
  });

  it('gives the same bytes with gzip as without, and as render()', async () => {
    publish(store, result(50, 1));
    const plain = await renderedText(renderer, 'identity');
    expect(await renderedText(renderer, 'gzip')).toBe(plain);
    expect(await renderer.render()).toBe(plain);
    expect(plain).toContain('# TYPE dataprotect_asset_size_bytes gauge\n');
  });

  it('formats a result once: later scrapes serve the same buffers until a new result comes', async () => {
    publish(store, result(50, 1));
    const dataOf = async (encoding: 'identity' | 'gzip'): Promise<Buffer | undefined> =>
      (await renderer.renderChunks(encoding)).find((chunk) => (encoding === 'gzip' ? gunzipSync(chunk) : chunk).toString('utf8').startsWith('dataprotect_asset_size_bytes{'));
    for (const encoding of ['identity', 'gzip'] as const) {
      const first = await dataOf(encoding);
      expect(first).toBeDefined();
      expect(await dataOf(encoding)).toBe(first);
    }
    const before = await dataOf('identity');
    publish(store, result(50, 2));
    expect(await dataOf('identity')).not.toBe(before);
  });

  it('serves nothing of a record that turned stale', async () => {
    let now = 1_000_000;
    const clockRenderer = new MetricsRenderer(() => store, new SelfMetrics({ processMetrics: false }), () => STALE_AFTER_MS, () => now);
    publish(store, result(SERIES, 1), now);
    expect(versionsIn(await renderedText(clockRenderer, 'identity')).count).toBe(SERIES);
    now += 120_000 + STALE_AFTER_MS + 10; // its next run (every 120 s) never came, and staleAfter passed
    expect(versionsIn(await renderedText(clockRenderer, 'identity')).count).toBe(0);
    expect(versionsIn(await renderedText(clockRenderer, 'gzip')).count).toBe(0);
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
    server = await listen(app, parseConfig({ web: { listenAddress: '127.0.0.1', port: 0 }, targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }] }).web);
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
