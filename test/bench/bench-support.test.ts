/**
 * The benchmark's own parts whose mistakes would go unnoticed in its output:
 * the estates' proportions, the shipped node options it reads, the hostile
 * servers' and the floor's behaviour over real HTTP, and which budgets apply
 * to which estate.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { estateName, estateOf, ESTATES, sizedFor, SIZING_HEAP_LIMITS, SIZING_MEMORY_LIMITS } from '../../bench/support/estates';
import { dockerfileEntrypointFlags, dockerfileNodeOptions, exporterNodeOptions } from '../../bench/support/node-options';
import { startHostileServer, type HostileServer } from '../../bench/support/hostile';
import { quantile } from '../../bench/support/scrape';
import { budgets, type EstateFigures } from '../../bench/support/report';
import { startChild } from '../../bench/support/ipc';
import type { FloorChildOptions, FloorHello } from '../../bench/support/floor-child';
import type { LoopDelayReport } from '../../bench/support/loop-lateness';

describe('bench estates', () => {
  it('keep the 10,000-asset proportions at every size, with S and L as 1k and 10k', () => {
    expect(ESTATES['10k']).toEqual({ assets: 10_000, copiesPerAsset: 20, activitiesPerDay: 100_000, auditEntries: 1_000_000, replicatedVms: 5_000, storageSystems: 8 });
    expect(estateOf(50_000)).toEqual({ assets: 50_000, copiesPerAsset: 20, activitiesPerDay: 500_000, auditEntries: 5_000_000, replicatedVms: 25_000, storageSystems: 40 });
    expect(estateOf(1_000).storageSystems).toBe(1);
    expect([estateName('S'), estateName('L'), estateName('25k')]).toEqual(['1k', '10k', '25k']);
    expect(() => estateName('XL')).toThrow(/unknown estate XL \(one of 1k, 10k, 25k, 50k, S, L\)/);
  });

  it('measure with the heap ceilings the sizing guide gives (--heap-limit sizing)', () => {
    const guide = readFileSync(path.join(__dirname, '../../docs/sizing.md'), 'utf8');
    const rows = [...guide.matchAll(/^\| ([\d,]+) assets \| (\d+MiB)/gm)].map((m) => [`${Number((m[1] as string).replace(/,/g, '')) / 1000}k`, m[2]]);
    expect(Object.fromEntries(rows)).toEqual(SIZING_HEAP_LIMITS);
  });

  it('measure under the memory limits the sizing guide gives (--memory-limit sizing)', () => {
    const guide = readFileSync(path.join(__dirname, '../../docs/sizing.md'), 'utf8');
    const rows = [...guide.matchAll(/^\| ([\d,]+) assets \| [^|]+ \| (\d+)(Mi|Gi) \|/gm)].map((m) => [
      `${Number((m[1] as string).replace(/,/g, '')) / 1000}k`,
      `${m[2]}${m[3]}B`,
    ]);
    expect(Object.fromEntries(rows)).toEqual(SIZING_MEMORY_LIMITS);
  });

  it("replace sizing by the estate's own ceiling and limit, and keep a given size or none", () => {
    expect(sizedFor('50k', { heapLimit: 'sizing', memoryLimit: 'sizing', rounds: 3 })).toEqual({ heapLimit: '448MiB', memoryLimit: '1GiB', rounds: 3 });
    expect(sizedFor('1k', { heapLimit: '200MiB', memoryLimit: undefined })).toEqual({ heapLimit: '200MiB', memoryLimit: undefined });
  });
});

describe('bench exporter node options', () => {
  it("read NODE_OPTIONS and the ENTRYPOINT's node flags from a Dockerfile and pass other values through", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-node-options-'));
    const dockerfile = path.join(dir, 'Dockerfile');
    writeFileSync(
      dockerfile,
      'FROM node:20\nENV NODE_OPTIONS="--max-old-space-size=123 --max-semi-space-size=4"\nENTRYPOINT ["node", "--single-threaded-gc", "dist/src/main.js"]\n',
    );
    expect(dockerfileNodeOptions(dockerfile)).toBe('--max-old-space-size=123 --max-semi-space-size=4');
    expect(dockerfileEntrypointFlags(dockerfile)).toEqual(['--single-threaded-gc']);
    writeFileSync(dockerfile, 'FROM node:20\n');
    expect(dockerfileNodeOptions(dockerfile)).toBe('');
    expect(() => dockerfileEntrypointFlags(dockerfile)).toThrow(/has no ENTRYPOINT/);
    expect(exporterNodeOptions(' --a  --b ')).toEqual(['--a', '--b']);
    expect(exporterNodeOptions('docker')).toEqual([...dockerfileNodeOptions().split(' ').filter(Boolean), ...dockerfileEntrypointFlags()]);
  });
});

describe('bench quantile', () => {
  it('is nearest-rank: with fewer than 100 values the p99 is the maximum', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect([quantile(hundred, 0.5), quantile(hundred, 0.99)]).toEqual([50, 99]);
    expect(quantile([3, 1, 2], 0.99)).toBe(3);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('bench hostile servers', () => {
  const servers: HostileServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  const start = async (kind: HostileServer['kind']) => {
    const server = await startHostileServer(kind);
    servers.push(server);
    return server;
  };

  it('pages forever: a login, then empty pages with a fresh queryState or a billion pages', async () => {
    const server = await start('pages-forever');
    const login = await request(`${server.url}/api/v2/login`, { method: 'POST', body: '{}' });
    expect(await login.body.json()).toMatchObject({ access_token: expect.any(String) });
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const page = (await (await request(`${server.url}/api/v2/assets?pageSize=1000&queryState=BEGIN`)).body.json()) as { content: unknown[]; page: { queryState: string } };
      expect(page.content).toEqual([]);
      expect(page.page.queryState).not.toBe('END');
      tokens.add(page.page.queryState);
    }
    expect(tokens.size).toBe(3);
    const random = (await (await request(`${server.url}/api/v2/alerts?page=2&pageSize=1000`)).body.json()) as { content: unknown[]; page: { number: number; totalPages: number } };
    expect(random).toEqual({ content: [], page: expect.objectContaining({ number: 2, totalPages: 1_000_000_000 }) });
    expect(server.requests).toBe(5);
  });

  it('endless body: keeps sending after the first megabyte', async () => {
    const server = await start('endless-body');
    const response = await request(`${server.url}/api/v2/assets?pageSize=1000&queryState=BEGIN`);
    let received = 0;
    for await (const chunk of response.body) {
      received += (chunk as Buffer).length;
      if (received > 1024 * 1024) break;
    }
    expect(response.statusCode).toBe(200);
    expect(received).toBeGreaterThan(1024 * 1024);
  });

  it('never answers: counts the request and sends nothing back', async () => {
    const server = await start('never-answers');
    const controller = new AbortController();
    const answer = request(`${server.url}/api/v2/login`, { method: 'POST', body: '{}', signal: controller.signal });
    while (server.requests === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(answer).rejects.toThrow(/abort/i);
    expect(server.requests).toBe(1);
  });
});

describe('bench floor', () => {
  it('sends the given number of ready bytes as a gzip exposition and reports its own loop delay', async () => {
    const floor = await startChild<FloorHello>('bench/support/floor-child.ts', { bytes: 100_000 } satisfies FloorChildOptions);
    try {
      await expect(floor.call('loopDelayStop')).rejects.toThrow(/loopDelayStart first/);
      await floor.call('loopDelayStart');
      const response = await request(floor.hello.url, { headers: { 'accept-encoding': 'gzip' } });
      expect(response.headers['content-encoding']).toBe('gzip');
      expect((await response.body.arrayBuffer()).byteLength).toBe(100_000);
      const delay = await floor.call<LoopDelayReport>('loopDelayStop');
      expect(delay.maxMs).toBeGreaterThanOrEqual(delay.p99Ms);
      expect(delay.p99Ms).toBeGreaterThanOrEqual(0);
    } finally {
      await floor.stop();
    }
  });
});

describe('bench budgets', () => {
  const figures = (estate: string): EstateFigures => ({
    estate,
    size: ESTATES[estate] ?? {},
    simStartSeconds: 1,
    simHeapBytes: 1,
    cold: { requests: 1_000, bytes: 1, seconds: 1, cpuSeconds: 1 },
    warm: { requests: 20, bytes: 1, seconds: 1, cpuSeconds: 1 },
    lower: { total: 1_000, parts: {} },
    overhead: { baselineSeconds: 1, baselineRequests: 1_000, bestColdSeconds: 1.1, ratio: 1.1 },
    heapAfterGcBytes: 1,
    roundsRun: 3,
    peakRssBytes: 600 * 1024 * 1024,
    exposition: {},
    hostile: { peakRssBytes: 300 * 1024 * 1024, roundSeconds: [1], requestsPerRound: { 'endless-body': [12], 'pages-forever': [600_000], 'never-answers': [8] } },
  });
  const failed = (f: EstateFigures) => budgets(f, { rounds: 3, exporterNodeOptions: [] }).filter((b) => !b.pass).map((b) => b.name);

  it('check the peak RSS of 10k and 50k against their budgets; the manifests\' limit and the hostile request bound everywhere', () => {
    expect(failed(figures('10k'))).toEqual(['peak RSS < 300.0 MB (rounds and HA scrapes)', 'requests per round to the pages-forever server <= 500']);
    expect(failed(figures('50k'))).toEqual(['requests per round to the pages-forever server <= 500']);
    expect(failed(figures('25k'))).toEqual(['requests per round to the pages-forever server <= 500']);
    expect(failed({ ...figures('50k'), peakRssBytes: 1100 * 1024 * 1024 })).toEqual([
      "peak RSS < 1 GiB, the manifests' limit (rounds and HA scrapes)",
      'peak RSS < 800.0 MB (rounds and HA scrapes)',
      'requests per round to the pages-forever server <= 500',
    ]);
  });

  it('check the HA pair and the serving thread\'s event-loop delay on 10k and 50k, with at least 200 scrapes', () => {
    const ha = (p99Ms: number, scrapes: number, maxDelayMs: number): EstateFigures['ha'] => ({
      scrapes, failures: 0, p50Ms: 1, p99Ms, maxMs: p99Ms, bytes: 1, intervalSeconds: 1, rounds: 5, loopDelay: { p99Ms: 1, maxMs: maxDelayMs },
    });
    const haFailures = (f: EstateFigures) => failed(f).filter((name) => !name.startsWith('requests per round'));
    expect(haFailures({ ...figures('10k'), peakRssBytes: 1, ha: ha(19, 200, 24) })).toEqual([]);
    expect(haFailures({ ...figures('10k'), peakRssBytes: 1, ha: ha(21, 200, 24) })).toEqual([expect.stringMatching(/^\/metrics p99 < 20 ms/)]);
    expect(haFailures({ ...figures('10k'), peakRssBytes: 1, ha: ha(19, 199, 24) })).toEqual([expect.stringMatching(/^\/metrics p99 < 20 ms/)]);
    expect(haFailures({ ...figures('50k'), ha: ha(49, 200, 26) })).toEqual([expect.stringMatching(/^serving thread's event-loop delay/)]);
  });

  it('fail the OTLP step when an exporter dropped an event, on every estate', () => {
    const cost = { seconds: 1, cpuSeconds: 1 };
    const otlp = (dropped: number): EstateFigures['otlp'] => ({
      cold: { off: cost, on: cost },
      hourLater: { off: cost, on: cost, send: cost, spans: 10, logs: 1 },
      backfill: { round: cost, send: cost, spans: 100, logs: 10 },
      dropped,
    });
    expect(failed({ ...figures('1k'), otlp: otlp(0) })).toEqual(['requests per round to the pages-forever server <= 500']);
    expect(failed({ ...figures('1k'), otlp: otlp(3) })).toEqual(['requests per round to the pages-forever server <= 500', 'OTLP forwarding: no event dropped']);
  });
});
