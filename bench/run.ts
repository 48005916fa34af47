/**
 * npm run bench: the exporter against simulated estates S and L, measured.
 *
 *   npm run bench [-- --estates S,L --scrape-seconds 10 --no-cardinality --otlp-only --exporter-node-options "--max-old-space-size=256"]
 *
 * Per estate, with the simulator and the exporter each in a child process of
 * its own (so the simulator's memory is not counted as the exporter's):
 *   1. exporter A: a cold round with its requests recorded, then the same
 *      pages fetched twice with a bare undici client (the baseline: the
 *      faster of the two);
 *   2. exporter C (fresh): a cold round, timed as B's is: A's carries the
 *      cost of recording (an AsyncLocalStorage hooks every promise on Node 20);
 *   3. exporter B (fresh): a cold round (the faster of C's and B's cold
 *      rounds against the baseline: the overhead ratio), a warm round with no change in the estate, then
 *      rounds with the clock moving while 20 clients scrape /metrics, first
 *      with Accept-Encoding gzip (as Prometheus does), then uncompressed;
 *   4. peak RSS of B's process, its series count and /metrics size;
 *   5. with collection.perAssetSeries protected and none: the series counts;
 *   6. the estate's events over OTLP (otlp.activities and otlp.auditLogs) off
 *      and on, to a local OTLP/HTTP sink: wall and CPU time of a cold round
 *      (nothing forwarded: only what completes after start is), of a round an
 *      hour later (that hour's activities and audit entries forwarded), of
 *      sending them, and of a cold round with a 24 h backfill (the whole
 *      window forwarded). --otlp-only runs this part alone.
 * Requests and bytes are the simulator's own count of what it answered.
 * The lower bound is the number of pages needed to read each listing the
 * exporter reads once (see lowerBound). Budgets are checked on L.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { EstateSize } from '../src/simulator/types';
import { startChild, type Child } from './support/ipc';
import type { ListingSizes, SimChildOptions, SimHello, StatsReport } from './support/sim-child';
import type { ExporterChildOptions, ExporterHello, MemoryReport, RoundReport } from './support/exporter-child';
import { countSeries, scrapeLoad, type ScrapeFigures } from './support/scrape';

const SIM_CHILD = 'bench/support/sim-child.ts';
const EXPORTER_CHILD = 'bench/support/exporter-child.ts';

export const ESTATES: Record<string, Partial<EstateSize>> = {
  S: { assets: 1_000 },
  L: { assets: 10_000, copiesPerAsset: 20, activitiesPerDay: 100_000, auditEntries: 1_000_000, replicatedVms: 5_000, storageSystems: 8 },
};

const PAGE_SIZE = 1000;
const WINDOW_MS = 24 * 3_600_000;
const CLASS_TYPES = ['JOB_GROUP', 'JOB'];
/** ids per latest-copies request: the client's batch, bounded by URL length */
const LATEST_COPIES_IDS_PER_REQUEST = 100;
/** capacity tiers read per storage system (active, cloud), plus alerts and replication contexts */
const STORAGE_REQUESTS_PER_SYSTEM = 4;
const SCRAPERS = 20;

interface Options {
  estates: string[];
  scrapeSeconds: number;
  cardinality: boolean;
  /** only part 6, the OTLP forwarding's cost */
  otlpOnly: boolean;
  /** node flags of the exporter's process (what NODE_OPTIONS would hold in production) */
  exporterNodeOptions: string[];
}

function parseOptions(argv: string[]): Options {
  const options: Options = { estates: ['S', 'L'], scrapeSeconds: 10, cardinality: true, otlpOnly: false, exporterNodeOptions: [] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--estates') options.estates = String(argv[++i]).split(',');
    else if (flag === '--scrape-seconds') options.scrapeSeconds = Number(argv[++i]);
    else if (flag === '--no-cardinality') options.cardinality = false;
    else if (flag === '--otlp-only') options.otlpOnly = true;
    else if (flag === '--exporter-node-options') options.exporterNodeOptions = String(argv[++i]).split(' ').filter(Boolean);
    else throw new Error(`unknown option ${flag} (use --estates S,L --scrape-seconds N --no-cardinality --otlp-only --exporter-node-options "...")`);
  }
  for (const estate of options.estates) if (!ESTATES[estate]) throw new Error(`unknown estate ${estate}`);
  return options;
}

/** Pages needed to read every listing the exporter reads exactly once, at its page size. */
export function lowerBound(sizes: ListingSizes): { total: number; parts: Record<string, number> } {
  const pages = (items: number) => Math.max(1, Math.ceil(items / PAGE_SIZE));
  const parts: Record<string, number> = {
    'management login': 1,
    assets: pages(sizes.assets),
    'asset copies (one listing per asset)': sizes.copyPages,
    'latest-copies': Math.max(1, Math.ceil(sizes.liveAssets / LATEST_COPIES_IDS_PER_REQUEST)),
    'copy-metrics': pages(sizes.copyMetrics),
    'activities in the window': pages(sizes.activitiesInWindow),
    'audit entries in the window': pages(sizes.auditInWindow),
    alerts: pages(sizes.alerts),
    'protection policies': pages(sizes.policies),
    compliance: pages(sizes.compliance),
    'inventory sources': pages(sizes.inventorySources),
    'cloud DR sessions': pages(sizes.cloudDrSessions),
    'replication clusters, groups, VMs (unpaged)': 3,
    'storage login and discovery': 3,
    'storage per system': sizes.storageSystems * STORAGE_REQUESTS_PER_SYSTEM,
  };
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

function exporterConfig(sim: SimHello, perAssetSeries: 'all' | 'protected' | 'none', events?: { endpoint: string; otlp: unknown }): unknown {
  const common = { username: sim.username, password: sim.password, pageSize: PAGE_SIZE };
  return {
    ...(events ? { tracing: { endpoint: events.endpoint }, otlp: events.otlp } : {}),
    web: { listenAddress: '127.0.0.1', port: 0 },
    logLevel: 'warn',
    collection: { perAssetSeries, window: WINDOW_MS / 1000, activityClassTypes: CLASS_TYPES },
    targets: [
      { name: 'mgmt', kind: 'management', url: sim.urls.management, ...common },
      { name: 'repl', kind: 'replication', url: sim.urls.replication, ...common },
      { name: 'store', kind: 'storage', url: sim.urls.storageCenter, storageMode: 'center', ...common },
    ],
  };
}

async function startExporter(
  sim: Child<SimHello>,
  perAssetSeries: 'all' | 'protected' | 'none',
  nodeArgs: string[],
  events?: { endpoint: string; otlp: unknown },
): Promise<Child<ExporterHello>> {
  const simNow = Date.parse(await sim.call<string>('now'));
  const options: ExporterChildOptions = { config: exporterConfig(sim.hello, perAssetSeries, events), clockOffsetMs: simNow - Date.now() };
  return startChild<ExporterHello>(EXPORTER_CHILD, options, { nodeArgs });
}

async function fetchMetrics(exporter: Child<ExporterHello>): Promise<string> {
  const response = await request(`${exporter.hello.address}/metrics`);
  return response.body.text();
}

async function measured<T>(sim: Child<SimHello>, work: () => Promise<T>): Promise<{ result: T; stats: StatsReport }> {
  await sim.call('resetStats');
  const result = await work();
  return { result, stats: await sim.call<StatsReport>('stats') };
}

function failedCollectors(round: RoundReport): string {
  const failed = round.collectors.filter((c) => !c.ok);
  return failed.length === 0 ? '' : `  FAILED collectors: ${failed.map((c) => `${c.target}/${c.collector} (${c.error?.slice(0, 120)})`).join('; ')}`;
}

/** The slowest collectors of a round with the bare fetch's time for the same pages: where the overhead is. */
function slowest(round: RoundReport, bare: Record<string, number>, count = 8): string {
  return [...round.collectors]
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count)
    .map((c) => `${c.target}/${c.collector} ${c.seconds.toFixed(2)}/${(bare[`${c.target}/${c.collector}`] ?? 0).toFixed(2)} s`)
    .join(', ');
}

interface EstateFigures {
  estate: string;
  simStartSeconds: number;
  otlp: OtlpCostFigures;
  cold: { requests: number; bytes: number; seconds: number; exporterRequests: number };
  /** the best of the two unrecorded cold rounds (exporters B and C) */
  bestColdSeconds: number;
  warm: { requests: number; bytes: number; seconds: number };
  lower: { total: number; parts: Record<string, number> };
  baseline: { seconds: number; requests: number; bytes: number };
  overhead: number;
  peakRssBytes: number;
  heapUsedBytes: number;
  series: number;
  metricsBytes: number;
  /** as Prometheus scrapes: Accept-Encoding gzip */
  scrape: ScrapeFigures;
  roundsDuringScrape: number;
  /** without compression */
  plainScrape: ScrapeFigures;
  cardinality: Record<string, number>;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** An OTLP/HTTP endpoint that counts the spans and log records it is sent. */
async function startOtlpSink(): Promise<{ url: string; counts: { spans: number; logs: number }; close(): Promise<void> }> {
  const counts = { spans: 0, logs: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // Counting the records' ids is enough, and cheaper than parsing for the parent.
      if (req.url === '/v1/traces') counts.spans += text.split('"spanId"').length - 1;
      if (req.url === '/v1/logs') counts.logs += text.split('"dataprotect.audit.id"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface OtlpCostFigures {
  /** cold round: wall and CPU seconds, off and on (default backfill: nothing forwarded) */
  cold: { off: RoundCost; on: RoundCost };
  /** a round an hour later: off and on, and sending what the on round forwarded */
  hourLater: { off: RoundCost; on: RoundCost; send: RoundCost; spans: number; logs: number };
  /** a cold round with otlp.backfill 24h: the whole window forwarded, and sending it */
  backfill: { round: RoundCost; send: RoundCost; spans: number; logs: number };
}

interface RoundCost {
  seconds: number;
  cpuSeconds: number;
}

const cost = (report: { seconds: number; cpuSeconds: number }): RoundCost => ({ seconds: report.seconds, cpuSeconds: report.cpuSeconds });
const costText = (c: RoundCost): string => `${c.seconds.toFixed(2)} s wall, ${c.cpuSeconds.toFixed(2)} s CPU`;

/** Part 6: the estate's events over OTLP off and on (see the header). */
async function otlpCost(sim: Child<SimHello>, options: Options): Promise<OtlpCostFigures> {
  const sink = await startOtlpSink();
  // A queue that holds a whole window: what is measured is the forwarding, not the drops.
  const events = (backfill: string) => ({
    endpoint: `${sink.url}/v1/traces`,
    otlp: { activities: { enabled: true }, auditLogs: { enabled: true }, backfill, maxQueueSize: 1_000_000, timeout: '60s' },
  });
  try {
    const off = await startExporter(sim, 'all', options.exporterNodeOptions);
    const on = await startExporter(sim, 'all', options.exporterNodeOptions, events('0s'));
    const coldOff = await off.call<RoundReport>('round');
    const coldOn = await on.call<RoundReport>('round');
    console.log(`OTLP cold round off: ${costText(coldOff)}${failedCollectors(coldOff)}; on: ${costText(coldOn)}${failedCollectors(coldOn)}`);
    // The exporters' clocks follow the simulator's, as a running exporter's would over that hour.
    await sim.call('advance', 3_600_000);
    for (const exporter of [off, on]) await exporter.call('advanceClock', 3_600_000);
    const hourOff = await off.call<RoundReport>('round');
    const hourOn = await on.call<RoundReport>('round');
    const send = await on.call<RoundCost>('flushEvents');
    const hour = { ...sink.counts };
    console.log(`OTLP round an hour later off: ${costText(hourOff)}; on: ${costText(hourOn)}; ${hour.spans} spans and ${hour.logs} log records sent; what was left to send after the round: ${costText(send)}`);
    for (const exporter of [off, on]) {
      await exporter.call('stop').catch(() => undefined);
      await exporter.stop();
    }
    sink.counts.spans = 0;
    sink.counts.logs = 0;
    const full = await startExporter(sim, 'all', options.exporterNodeOptions, events('24h'));
    const backfillRound = await full.call<RoundReport>('round');
    const backfillSend = await full.call<RoundCost>('flushEvents');
    console.log(`OTLP cold round with a 24 h backfill: ${costText(backfillRound)}; ${sink.counts.spans} spans and ${sink.counts.logs} log records sent; what was left to send after the round: ${costText(backfillSend)}`);
    await full.call('stop').catch(() => undefined);
    await full.stop();
    return {
      cold: { off: cost(coldOff), on: cost(coldOn) },
      hourLater: { off: cost(hourOff), on: cost(hourOn), send: cost(send), spans: hour.spans, logs: hour.logs },
      backfill: { round: cost(backfillRound), send: cost(backfillSend), spans: sink.counts.spans, logs: sink.counts.logs },
    };
  } finally {
    await sink.close();
  }
}

/** --otlp-only: part 6 alone on a fresh simulator. */
async function benchOtlpOnly(name: string, options: Options): Promise<void> {
  const size = ESTATES[name] as Partial<EstateSize>;
  console.log(`\n=== estate ${name} (OTLP forwarding only): ${JSON.stringify(size)}`);
  const sim = await startChild<SimHello>(SIM_CHILD, { seed: 1, size } satisfies SimChildOptions);
  try {
    await otlpCost(sim, options);
  } finally {
    await sim.call('close').catch(() => undefined);
    await sim.stop();
  }
}

async function benchEstate(name: string, options: Options): Promise<EstateFigures> {
  const size = ESTATES[name] as Partial<EstateSize>;
  console.log(`\n=== estate ${name}: ${JSON.stringify(size)}; exporter node options: ${options.exporterNodeOptions.join(' ') || '(none)'}`);
  const sim = await startChild<SimHello>(SIM_CHILD, { seed: 1, size } satisfies SimChildOptions);
  console.log(`simulator ready in ${sim.hello.startedInSeconds.toFixed(1)} s`);
  try {
    // 1. what a cold round reads, and the same pages fetched bare
    const a = await startExporter(sim, 'all', options.exporterNodeOptions);
    await a.call('captureStart');
    const first = await measured(sim, () => a.call<RoundReport>('round'));
    console.log(`cold round (exporter A): ${first.stats.total} requests, ${first.result.seconds.toFixed(2)} s${failedCollectors(first.result)}`);
    const sizes = await sim.call<ListingSizes>('listingSizes', { pageSize: PAGE_SIZE, windowMs: WINDOW_MS, classTypes: CLASS_TYPES });
    const baseline = await measured(sim, () => a.call<{ seconds: number; requests: number; bytes: number; byCollector: Record<string, number> }>('baseline', { times: 2 }));
    console.log(`baseline (bare undici, same pages, best of 2): ${baseline.result.requests} requests, ${baseline.result.seconds.toFixed(2)} s`);
    console.log(`  slowest collectors, cold round A / bare fetch: ${slowest(first.result, baseline.result.byCollector)}`);
    await a.call('stop').catch(() => undefined);
    await a.stop();

    // 2. a second cold round without the recording, so that the exporter's side too is the best of two like rounds
    const c = await startExporter(sim, 'all', options.exporterNodeOptions);
    const second = await measured(sim, () => c.call<RoundReport>('round'));
    console.log(`cold round (exporter C): ${second.stats.total} requests, ${second.result.seconds.toFixed(2)} s${failedCollectors(second.result)}`);
    await c.call('stop').catch(() => undefined);
    await c.stop();

    // 3. a fresh exporter: cold round, warm round, scrapes during collections
    const b = await startExporter(sim, 'all', options.exporterNodeOptions);
    const cold = await measured(sim, () => b.call<RoundReport>('round'));
    console.log(`cold round (exporter B): ${cold.stats.total} requests, ${mb(cold.stats.bytes)}, ${cold.result.seconds.toFixed(2)} s${failedCollectors(cold.result)}`);
    const warm = await measured(sim, () => b.call<RoundReport>('round'));
    console.log(`warm round: ${warm.stats.total} requests, ${mb(warm.stats.bytes)}, ${warm.result.seconds.toFixed(2)} s${failedCollectors(warm.result)}`);
    console.log(`  warm requests by endpoint: ${JSON.stringify(warm.result.byEndpoint)}`);

    const text = await fetchMetrics(b);
    // Scrapes while collections run back to back with the estate changing:
    // first as Prometheus scrapes (gzip), then uncompressed.
    const scrapePhase = async (gzip: boolean): Promise<{ scrape: ScrapeFigures; rounds: number }> => {
      let rounds = 0;
      let collecting = true;
      const deadline = Date.now() + options.scrapeSeconds * 1000;
      const collections = (async () => {
        while (Date.now() < deadline) {
          await sim.call('advance', 60_000);
          await b.call<RoundReport>('round');
          rounds += 1;
        }
        collecting = false;
      })();
      const scrape = await scrapeLoad(`${b.hello.address}/metrics`, SCRAPERS, () => collecting, { gzip });
      await collections;
      console.log(`${gzip ? 'gzip' : 'uncompressed'} scrapes during ${rounds} collection rounds: ${scrape.scrapes} (failed ${scrape.failures}), ${mb(scrape.bytes)} each, p50 ${scrape.p50Ms.toFixed(1)} ms, p99 ${scrape.p99Ms.toFixed(1)} ms`);
      return { scrape, rounds };
    };
    const gzipped = await scrapePhase(true);
    const plain = await scrapePhase(false);
    const memory = await b.call<MemoryReport>('memory');
    await b.call('stop').catch(() => undefined);
    await b.stop();

    // 5. cardinality settings
    const cardinality: Record<string, number> = { all: countSeries(text) };
    if (options.cardinality) {
      for (const setting of ['protected', 'none'] as const) {
        const exporter = await startExporter(sim, setting, options.exporterNodeOptions);
        await exporter.call<RoundReport>('round');
        cardinality[setting] = countSeries(await fetchMetrics(exporter));
        await exporter.call('stop').catch(() => undefined);
        await exporter.stop();
      }
      console.log(`series by collection.perAssetSeries: ${JSON.stringify(cardinality)}`);
    }

    // 6. the estate's events over OTLP
    const otlp = await otlpCost(sim, options);

    const bestCold = Math.min(second.result.seconds, cold.result.seconds);
    return {
      estate: name,
      simStartSeconds: sim.hello.startedInSeconds,
      cold: { requests: cold.stats.total, bytes: cold.stats.bytes, seconds: cold.result.seconds, exporterRequests: cold.result.requests },
      bestColdSeconds: bestCold,
      warm: { requests: warm.stats.total, bytes: warm.stats.bytes, seconds: warm.result.seconds },
      lower: lowerBound(sizes),
      baseline: baseline.result,
      // Best of two on each side: wall times on a shared 2-core machine vary by a third from run to run.
      overhead: bestCold / baseline.result.seconds,
      peakRssBytes: memory.maxRss,
      heapUsedBytes: memory.heapUsed,
      series: countSeries(text),
      metricsBytes: Buffer.byteLength(text),
      scrape: gzipped.scrape,
      roundsDuringScrape: gzipped.rounds,
      plainScrape: plain.scrape,
      cardinality,
      otlp,
    };
  } finally {
    await sim.call('close').catch(() => undefined);
    await sim.stop();
  }
}

interface Budget {
  name: string;
  value: string;
  pass: boolean;
}

function budgets(f: EstateFigures): Budget[] {
  const warmShare = f.warm.requests / f.cold.requests;
  const coldRatio = f.cold.requests / f.lower.total;
  return [
    { name: 'warm-round requests <= 5% of cold', value: `${(warmShare * 100).toFixed(2)}%`, pass: warmShare <= 0.05 },
    { name: 'cold requests <= 1.2 x lower bound', value: `${coldRatio.toFixed(3)} x`, pass: coldRatio <= 1.2 },
    { name: 'overhead ratio <= 1.3', value: f.overhead.toFixed(2), pass: f.overhead <= 1.3 },
    { name: '/metrics p99 < 250 ms (20 concurrent gzip scrapes, as Prometheus)', value: `${f.scrape.p99Ms.toFixed(1)} ms`, pass: f.scrape.p99Ms < 250 && f.scrape.failures === 0 },
    { name: 'peak RSS < 400 MB', value: mb(f.peakRssBytes), pass: f.peakRssBytes < 400 * 1024 * 1024 },
  ];
}

function report(all: EstateFigures[]): boolean {
  const rows: Array<[string, ...string[]]> = [
    ['', ...all.map((f) => f.estate)],
    ['cold round: requests', ...all.map((f) => String(f.cold.requests))],
    ['cold round: bytes read', ...all.map((f) => mb(f.cold.bytes))],
    ['cold round: wall time (best of B and C)', ...all.map((f) => `${f.bestColdSeconds.toFixed(2)} s`)],
    ['lower bound (pages)', ...all.map((f) => String(f.lower.total))],
    ['cold requests / lower bound', ...all.map((f) => (f.cold.requests / f.lower.total).toFixed(3))],
    ['warm round: requests', ...all.map((f) => String(f.warm.requests))],
    ['warm round: bytes read', ...all.map((f) => mb(f.warm.bytes))],
    ['warm / cold requests', ...all.map((f) => `${((f.warm.requests / f.cold.requests) * 100).toFixed(2)}%`)],
    ['bare fetch of the same pages', ...all.map((f) => `${f.baseline.seconds.toFixed(2)} s`)],
    ['overhead ratio', ...all.map((f) => f.overhead.toFixed(2))],
    ['peak RSS (exporter process)', ...all.map((f) => mb(f.peakRssBytes))],
    ['series', ...all.map((f) => String(f.series))],
    ['/metrics size', ...all.map((f) => mb(f.metricsBytes))],
    ['/metrics gzip size', ...all.map((f) => mb(f.scrape.bytes))],
    ['/metrics p50 / p99, gzip (20 concurrent)', ...all.map((f) => `${f.scrape.p50Ms.toFixed(1)} / ${f.scrape.p99Ms.toFixed(1)} ms`)],
    ['gzip scrapes (failed) during rounds', ...all.map((f) => `${f.scrape.scrapes} (${f.scrape.failures}) during ${f.roundsDuringScrape}`)],
    ['/metrics p50 / p99, uncompressed', ...all.map((f) => `${f.plainScrape.p50Ms.toFixed(1)} / ${f.plainScrape.p99Ms.toFixed(1)} ms`)],
    ['series, perAssetSeries all/protected/none', ...all.map((f) => ['all', 'protected', 'none'].map((k) => f.cardinality[k] ?? '-').join(' / '))],
  ];
  const widths = (rows[0] as string[]).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  console.log('\n=== results');
  for (const row of rows) console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0] as number) : cell.padStart(widths[column] as number))).join('  '));
  for (const f of all) {
    console.log(`\nlower bound of ${f.estate}: ${Object.entries(f.lower.parts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  let ok = true;
  const large = all.find((f) => f.estate === 'L');
  if (large) {
    console.log('\n=== budgets on L');
    for (const budget of budgets(large)) {
      console.log(`${budget.pass ? 'PASS' : 'FAIL'}  ${budget.name}: ${budget.value}`);
      ok &&= budget.pass;
    }
  }
  console.log(`\n${JSON.stringify(all)}`);
  return ok;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.otlpOnly) {
    for (const estate of options.estates) await benchOtlpOnly(estate, options);
    return;
  }
  const figures: EstateFigures[] = [];
  for (const estate of options.estates) figures.push(await benchEstate(estate, options));
  const ok = report(figures);
  process.exitCode = ok ? 0 : 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(2);
  });
}
