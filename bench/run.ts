/**
 * npm run bench: the exporter against simulated estates, measured: the
 * sizing figures and the budgets in one command.
 *
 *   npm run bench -- [--estates 1k,10k,25k,50k] [--rounds 3] [--ha-seconds 100]
 *     [--ha-interval 1] [--stress-seconds 10] [--no-overhead] [--no-cardinality] [--no-floor]
 *     [--hostile] [--no-otlp | --otlp-only] [--exporter-node-options docker | --exporter-node-options "--max-old-space-size=320"]
 *     [--heap-limit sizing|SIZE] [--memory-limit sizing|SIZE]
 *
 * Estates are named by asset count, with the proportions stated in
 * bench/support/estates.ts (S and L name 1k and 10k). `--exporter-node-options
 * docker` runs the exporter with the node flags of the shipped Dockerfile;
 * `--memory-limit` runs each exporter child in a memory cgroup of that limit, as
 * a container runs it (bench/support/memory-cgroup.ts).
 *
 * Per estate, the simulator and each exporter run in a child process of their
 * own (the simulator's memory is not counted as the exporter's):
 *   1. overhead (unless --no-overhead): exporter A runs a cold round with its
 *      requests recorded, then fetches the same pages twice with a bare undici
 *      client (the baseline: the faster of the two); exporter C runs an
 *      unrecorded cold round (A's carries the cost of recording). The overhead
 *      ratio is the faster of C's and B's cold rounds over the baseline;
 *   2. exporter B: a cold and a warm round (wall time, CPU seconds of its
 *      process, API requests), the heap in use after a forced GC, the
 *      exposition's series and size plain and gzip, then rounds with the
 *      simulated clock moving 60 s each until --rounds rounds have run;
 *   3. HA scrapes: while rounds run back to back with the clock moving, two
 *      scrapers (an HA pair of Prometheus servers) each scrape every
 *      --ha-interval seconds (1: 200 scrapes in the default 100 s, enough
 *      for a p99) for --ha-seconds, gzip, from start offsets spread over the
 *      interval: the budgeted p99. Meanwhile the serving thread's event-loop
 *      delay is sampled (budgeted too). The exporter's peak RSS so far is the
 *      budgeted one. Unless --no-floor, the machine's floor beside it
 *      (bench/support/floor-child.ts, reported, not budgeted): an idle
 *      process's event-loop delay during the HA scrapes, then, rounds still
 *      running, the same HA scrapes of a process that only sends as many
 *      ready bytes as the gzip exposition;
 *   4. stress: 20 clients scraping back to back for --stress-seconds (or
 *      --scrape-seconds) during rounds: reported, not budgeted (no user
 *      scrapes so), with the peak RSS after it;
 *   5. perAssetSeries protected and none (unless --no-cardinality): a fresh
 *      exporter's cold round each, its series and exposition size;
 *   6. hostile (with --hostile): exporter H with the estate's targets and
 *      three hostile management look-alikes beside them (bench/support/hostile.ts)
 *      through --rounds rounds: its peak RSS and the requests each hostile
 *      server received per round;
 *   7. the estate's events over OTLP (unless --no-otlp): exporters with
 *      otlp.activities and otlp.auditLogs off and on, to a local OTLP/HTTP
 *      sink, wall and CPU time of a cold round, a round an hour later and a
 *      cold round with a 24 h backfill (bench/support/otlp-cost.ts); last,
 *      as it moves the simulator's clock by an hour. --otlp-only runs it alone.
 * Requests and bytes are the simulator's own count of what it answered. The
 * lower bound is the number of pages needed to read each listing the
 * exporter reads once (see lowerBound). Budgets print PASS or FAIL (see
 * bench/support/report.ts); any FAIL, or an exporter that exits during its
 * rounds, makes the exit code 1.
 */
import type { EstateSize } from '../simulator/types';
import { startChild, type Child } from './support/ipc';
import type { ListingSizes, SimChildOptions, SimHello, StatsReport } from './support/sim-child';
import type { FloorChildOptions, FloorHello } from './support/floor-child';
import type { BaselineReport } from './support/bare-fetch';
import type { ExporterChildOptions, ExporterHello, MemoryReport, RoundReport } from './support/exporter-child';
import type { LoopDelayReport } from './support/loop-lateness';
import { describeRatios, estateName, ESTATES, sizedFor } from './support/estates';
import { createMemoryCgroup, removeLeftoverCgroups, rmdirQuietly, type MemoryCgroup } from './support/memory-cgroup';
import { parseBytes } from '../src/util/bytes';
import { exporterNodeOptions } from './support/node-options';
import { exposition, intervalScrapes, scrapeLoad, type Exposition, type ScrapeFigures } from './support/scrape';
import { HOSTILE_KINDS, startHostileServer, type HostileKind, type HostileServer } from './support/hostile';
import { otlpCostPhase, type EventSettings } from './support/otlp-cost';
import { report, type EstateFigures, type EstateResult, type RoundFigures } from './support/report';
import { compileExporterChild, COMPILED_EXPORTER_CHILD } from './support/compiled';

const SIM_CHILD = 'bench/support/sim-child.ts';
const FLOOR_CHILD = 'bench/support/floor-child.ts';

const PAGE_SIZE = 1000;
const WINDOW_MS = 24 * 3_600_000;
const CLASS_TYPES = ['JOB_GROUP', 'JOB'];
/** ids per latest-copies request: the client's batch, bounded by URL length */
const LATEST_COPIES_IDS_PER_REQUEST = 100;
/** capacity tiers read per storage system (active, cloud), plus alerts and replication contexts */
const STORAGE_REQUESTS_PER_SYSTEM = 4;
const HA_SCRAPERS = 2;
const STRESS_SCRAPERS = 20;
/** how far the simulated clock moves between the rounds after the warm one */
const ROUND_STEP_MS = 60_000;

type PerAssetSeries = 'all' | 'protected' | 'none';

interface Options {
  estates: string[];
  /** rounds exporter B (and H) runs before the scrape phases: cold, warm, then with the clock moving */
  rounds: number;
  haSeconds: number;
  haIntervalSeconds: number;
  stressSeconds: number;
  overhead: boolean;
  cardinality: boolean;
  /** the machine's floor beside the HA scrapes */
  floor: boolean;
  hostile: boolean;
  /** step 7, the OTLP forwarding's cost */
  otlp: boolean;
  /** step 7 alone */
  otlpOnly: boolean;
  /** node flags of the exporter's process (what NODE_OPTIONS would hold in production) */
  exporterNodeOptions: string[];
  /** collection.heapLimit of the exporters: a size, `sizing` (the sizing guide's per estate), or the default */
  heapLimit?: string;
  /** the memory cgroup limit each exporter child runs under: a size, `sizing` (the sizing guide's per estate), or none */
  memoryLimit?: string;
}

const USAGE = `usage: npm run bench -- [options]   (what each phase measures: docs/performance.md)
  --estates 1k,10k,25k,50k          estates by asset count (default 1k,10k)
  --rounds N                        collection rounds of exporter B, at least 2 (default 3)
  --ha-seconds N, --ha-interval N   HA scrape phase length and interval, in seconds (default 100, 1)
  --stress-seconds N                back-to-back scrape phase, in seconds (default 10)
  --no-overhead, --no-cardinality   skip the overhead or the perAssetSeries phase
  --no-floor                        skip the machine's floor beside the HA scrapes
  --hostile                         add the hostile look-alike phase
  --no-otlp | --otlp-only           skip the OTLP events phase, or run it alone
  --exporter-node-options docker|"FLAGS"   node flags of the exporter (docker: the Dockerfile's)
  --heap-limit sizing|SIZE          collection.heapLimit (sizing: docs/sizing.md's per estate)
  --memory-limit sizing|SIZE        run each exporter in a memory cgroup of this limit, as a container
                                    (sizing: docs/sizing.md's per estate; needs root)
  --help                            this text`;

/** A wrong command line: its message and the usage, no stack trace. */
class UsageError extends Error {}

function parseOptions(argv: string[]): Options {
  const options: Options = { estates: ['1k', '10k'], rounds: 3, haSeconds: 100, haIntervalSeconds: 1, stressSeconds: 10, overhead: true, cardinality: true, floor: true, hostile: false, otlp: true, otlpOnly: false, exporterNodeOptions: [] };
  const count = (flag: string, value: string | undefined, min: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag} needs a whole number >= ${min}, got ${value}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (flag === '--estates') options.estates = String(argv[++i]).split(',').map(estateName);
    else if (flag === '--rounds') options.rounds = count(flag, argv[++i], 2);
    else if (flag === '--ha-seconds') options.haSeconds = count(flag, argv[++i], 0);
    else if (flag === '--ha-interval') options.haIntervalSeconds = count(flag, argv[++i], 1);
    else if (flag === '--stress-seconds' || flag === '--scrape-seconds') options.stressSeconds = count(flag, argv[++i], 0);
    else if (flag === '--no-overhead') options.overhead = false;
    else if (flag === '--no-cardinality') options.cardinality = false;
    else if (flag === '--no-floor') options.floor = false;
    else if (flag === '--hostile') options.hostile = true;
    else if (flag === '--no-otlp') options.otlp = false;
    else if (flag === '--otlp-only') options.otlpOnly = true;
    else if (flag === '--exporter-node-options') options.exporterNodeOptions = exporterNodeOptions(String(argv[++i]));
    else if (flag === '--heap-limit') options.heapLimit = String(argv[++i]);
    else if (flag === '--memory-limit') options.memoryLimit = sizingOrSize(flag, argv[++i]);
    else throw new Error(`unknown option ${flag}`);
  }
  if (options.otlpOnly && !options.otlp) throw new Error('--otlp-only and --no-otlp exclude each other');
  return options;
}

/** A container's memory limit: `sizing`, or a size of at least 64 MiB (a unitless number is bytes, and no exporter starts in so few). */
function sizingOrSize(flag: string, value: string | undefined): string {
  if (value === 'sizing' || (value !== undefined && (parseBytes(value) ?? 0) >= 64 * 1024 ** 2)) return value;
  throw new Error(`${flag} needs sizing or a size of at least 64MiB, such as 512MiB; got ${value}`);
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

interface ExtraTarget {
  name: string;
  url: string;
}

function exporterConfig(sim: SimHello, options: Options, perAssetSeries: PerAssetSeries, hostile: ExtraTarget[] = [], events?: EventSettings): unknown {
  const common = { username: sim.username, password: sim.password, pageSize: PAGE_SIZE };
  const heapLimit = options.heapLimit ? { heapLimit: options.heapLimit } : {};
  return {
    ...(events ?? {}),
    web: { listenAddress: '127.0.0.1', port: 0 },
    logLevel: 'warn',
    collection: { perAssetSeries, window: WINDOW_MS / 1000, activityClassTypes: CLASS_TYPES, ...heapLimit },
    targets: [
      { name: 'mgmt', kind: 'management', url: sim.urls.management, ...common },
      { name: 'repl', kind: 'replication', url: sim.urls.replication, ...common },
      { name: 'store', kind: 'storage', url: sim.urls.storageCenter, storageMode: 'center', ...common },
      ...hostile.map((target) => ({ ...target, kind: 'management', username: 'bench', password: 'hostile-bench', pageSize: PAGE_SIZE })),
    ],
  };
}

async function startExporter(
  sim: Child<SimHello>,
  options: Options,
  perAssetSeries: PerAssetSeries,
  hostile: ExtraTarget[] = [],
  events?: EventSettings,
): Promise<Child<ExporterHello>> {
  const simNow = Date.parse(await sim.call<string>('now'));
  const childOptions: ExporterChildOptions = { config: exporterConfig(sim.hello, options, perAssetSeries, hostile, events), clockOffsetMs: simNow - Date.now() };
  const nodeArgs = ['--expose-gc', ...options.exporterNodeOptions];
  if (!options.memoryLimit) return startChild<ExporterHello>(COMPILED_EXPORTER_CHILD, childOptions, { nodeArgs });
  if (cgroupsMade === 0) removeLeftoverCgroups(CGROUP_PREFIX);
  const cgroup = createMemoryCgroup(`${CGROUP_PREFIX}${process.pid}-${++cgroupsMade}`, parseBytes(options.memoryLimit) as number);
  try {
    const exporter = await startChild<ExporterHello>(COMPILED_EXPORTER_CHILD, childOptions, { nodeArgs, cgroupDir: cgroup.dir });
    cgroups.set(exporter, cgroup);
    return exporter;
  } catch (error) {
    // The child has exited (startChild settles only then); a process still inside, a fork that never ran node, leaves the cgroup to
    // the next run, and the start's own error is the one to tell.
    rmdirQuietly(cgroup.dir);
    throw error;
  }
}

/** Each exporter child's memory cgroup (--memory-limit), removed when it stops; one a run left behind goes at the next. */
const cgroups = new Map<Child<ExporterHello>, MemoryCgroup>();
const CGROUP_PREFIX = 'dataprotect-bench-';
let cgroupsMade = 0;

async function stopExporter(exporter: Child<ExporterHello>): Promise<void> {
  await exporter.call('stop').catch(() => undefined);
  await exporter.stop();
  const cgroup = cgroups.get(exporter);
  if (!cgroup) return;
  cgroups.delete(exporter);
  const peak = cgroup.peakBytes();
  console.log(`exporter's memory cgroup: peak ${peak === undefined ? '-' : mb(peak)} of ${mb(cgroup.limitBytes)}`);
  cgroup.remove();
}

/** Runs `work` with an exporter, stopped afterwards whatever happens. */
async function withExporter<T>(exporter: Child<ExporterHello>, work: (exporter: Child<ExporterHello>) => Promise<T>): Promise<T> {
  try {
    return await work(exporter);
  } finally {
    await stopExporter(exporter);
  }
}

/** Step 7: the estate's events over OTLP, off and on (bench/support/otlp-cost.ts). */
function otlpPhase(sim: Child<SimHello>, options: Options): ReturnType<typeof otlpCostPhase> {
  return otlpCostPhase(
    {
      startExporter: (events) => startExporter(sim, options, 'all', [], events),
      advanceSimulator: async (ms) => {
        await sim.call('advance', ms);
      },
      stopExporter,
    },
    (line) => console.log(line),
  );
}

async function measured<T>(sim: Child<SimHello>, work: () => Promise<T>): Promise<{ result: T; stats: StatsReport }> {
  await sim.call('resetStats');
  const result = await work();
  return { result, stats: await sim.call<StatsReport>('stats') };
}

async function measuredRound(sim: Child<SimHello>, exporter: Child<ExporterHello>, label: string): Promise<RoundFigures> {
  const { result, stats } = await measured(sim, () => exporter.call<RoundReport>('round'));
  console.log(`${label}: ${stats.total} requests, ${mb(stats.bytes)}, ${result.seconds.toFixed(2)} s wall, ${result.cpuSeconds.toFixed(2)} s CPU${failedCollectors(result)}`);
  return { requests: stats.total, bytes: stats.bytes, seconds: result.seconds, cpuSeconds: result.cpuSeconds };
}

/** A round after both clocks, the simulator's and the exporter's, moved by ROUND_STEP_MS. */
async function advancedRound(sim: Child<SimHello>, exporter: Child<ExporterHello>): Promise<RoundReport> {
  await sim.call('advance', ROUND_STEP_MS);
  await exporter.call('advance', ROUND_STEP_MS);
  return exporter.call<RoundReport>('round');
}

/**
 * Runs `load` while collection rounds run back to back with the clock moving;
 * the rounds that overlapped it (the last one is awaited). A round that fails
 * (the exporter exited) fails the phase once the load has ended.
 */
async function duringRounds<T>(sim: Child<SimHello>, exporter: Child<ExporterHello>, load: () => Promise<T>): Promise<{ result: T; rounds: number }> {
  let loading = true;
  let rounds = 0;
  let failure: { error: unknown } | undefined;
  const collections = (async () => {
    while (loading) {
      rounds += 1;
      await advancedRound(sim, exporter);
    }
  })().catch((error: unknown) => {
    failure = { error };
  });
  const result = await load();
  loading = false;
  await collections;
  if (failure) throw failure.error;
  return { result, rounds };
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

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const scrapeLine = (s: ScrapeFigures) => `${s.scrapes} scrapes (failed ${s.failures}), ${mb(s.bytes)} each, p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms`;

/** Step 1: the bare fetch of a cold round's pages (exporter A) and an unrecorded cold round (exporter C). */
async function overheadPhase(sim: Child<SimHello>, options: Options): Promise<{ baseline: BaselineReport; coldSecondsC: number }> {
  const baseline = await withExporter(await startExporter(sim, options, 'all'), async (a) => {
    await a.call('captureStart');
    const first = await a.call<RoundReport>('round');
    console.log(`cold round (exporter A, recorded): ${first.seconds.toFixed(2)} s${failedCollectors(first)}`);
    const best = await a.call<BaselineReport>('baseline', { times: 2 });
    console.log(`baseline (bare undici, same pages, best of 2): ${best.requests} requests, ${best.seconds.toFixed(2)} s`);
    console.log(`  slowest collectors, cold round A / bare fetch: ${slowest(first, best.byCollector)}`);
    return best;
  });
  const coldC = await withExporter(await startExporter(sim, options, 'all'), (c) => measuredRound(sim, c, 'cold round (exporter C)'));
  return { baseline, coldSecondsC: coldC.seconds };
}

type ExporterBFigures = Pick<EstateFigures, 'cold' | 'warm' | 'heapAfterGcBytes' | 'roundsRun' | 'ha' | 'peakRssBytes' | 'floor' | 'stress'> & { exposition: Exposition };

/**
 * Step 3: the HA scrapes during rounds and the exporter's peak RSS after them,
 * then the machine's floor: the figures a process that does no work gets on
 * this machine under the same rounds.
 */
async function haPhases(
  sim: Child<SimHello>,
  b: Child<ExporterHello>,
  url: string,
  gzipBytes: number,
  options: Options,
): Promise<Pick<EstateFigures, 'ha' | 'peakRssBytes' | 'floor'>> {
  if (options.haSeconds === 0) return { peakRssBytes: (await b.call<MemoryReport>('memory')).maxRss };
  const floorChild = options.floor ? await startChild<FloorHello>(FLOOR_CHILD, { bytes: gzipBytes } satisfies FloorChildOptions) : undefined;
  try {
    const haScrapes = (target: string) => () => intervalScrapes(target, HA_SCRAPERS, options.haIntervalSeconds * 1000, options.haSeconds * 1000);
    await Promise.all([b.call('loopDelayStart'), floorChild?.call('loopDelayStart')]);
    const phase = await duringRounds(sim, b, haScrapes(url));
    const [loopDelay, idleLoopDelay] = await Promise.all([b.call<LoopDelayReport>('loopDelayStop'), floorChild?.call<LoopDelayReport>('loopDelayStop')]);
    const ha = { ...phase.result, intervalSeconds: options.haIntervalSeconds, rounds: phase.rounds, loopDelay };
    console.log(`HA pair, every ${options.haIntervalSeconds} s (offsets ${phase.result.offsetsMs.join(', ')} ms), during ${phase.rounds} rounds: ${scrapeLine(phase.result)}`);
    console.log(`  event loop delay meanwhile: p99 ${loopDelay.p99Ms.toFixed(1)} ms, max ${loopDelay.maxMs.toFixed(1)} ms`);
    const peakRssBytes = (await b.call<MemoryReport>('memory')).maxRss;
    if (!floorChild || !idleLoopDelay) return { ha, peakRssBytes };

    console.log(`  floor: an idle process's event loop delay meanwhile: p99 ${idleLoopDelay.p99Ms.toFixed(1)} ms, max ${idleLoopDelay.maxMs.toFixed(1)} ms`);
    const floorPhase = await duringRounds(sim, b, haScrapes(floorChild.hello.url));
    console.log(`floor: the same HA scrapes of ready bytes from an idle process, during ${floorPhase.rounds} rounds: ${scrapeLine(floorPhase.result)}`);
    return { ha, peakRssBytes, floor: { idleLoopDelay, scrapes: { ...floorPhase.result, rounds: floorPhase.rounds } } };
  } finally {
    await floorChild?.stop();
  }
}

/** Steps 2-4: exporter B's rounds, scrape phases and memory. */
async function exporterBPhases(sim: Child<SimHello>, options: Options): Promise<ExporterBFigures> {
  return withExporter(await startExporter(sim, options, 'all'), async (b) => {
    const cold = await measuredRound(sim, b, 'cold round (exporter B)');
    const warm = await measuredRound(sim, b, 'warm round, no change in the estate');
    const heapAfterGcBytes = (await b.call<MemoryReport>('gc')).heapUsed;
    const all = await exposition(`${b.hello.address}/metrics`);
    for (let round = 3; round <= options.rounds; round++) {
      const report = await advancedRound(sim, b);
      console.log(`round ${round}, clock +${ROUND_STEP_MS / 1000} s: ${report.seconds.toFixed(2)} s wall, ${report.cpuSeconds.toFixed(2)} s CPU${failedCollectors(report)}`);
    }
    console.log(`serving thread heap in use after a round and a forced GC: ${mb(heapAfterGcBytes)}; rounds run: ${options.rounds}`);

    const url = `${b.hello.address}/metrics`;
    const { ha, peakRssBytes, floor } = await haPhases(sim, b, url, all.gzipBytes, options);

    let stress: EstateFigures['stress'];
    if (options.stressSeconds > 0) {
      const deadline = performance.now() + options.stressSeconds * 1000;
      const phase = await duringRounds(sim, b, () => scrapeLoad(url, STRESS_SCRAPERS, () => performance.now() < deadline));
      stress = { ...phase.result, rounds: phase.rounds, peakRssBytes: (await b.call<MemoryReport>('memory')).maxRss };
      console.log(`stress, ${STRESS_SCRAPERS} clients back to back, during ${phase.rounds} rounds: ${scrapeLine(phase.result)}`);
    }
    const roundsRun = options.rounds + (ha?.rounds ?? 0) + (floor?.scrapes.rounds ?? 0) + (stress?.rounds ?? 0);
    return { cold, warm, heapAfterGcBytes, exposition: all, roundsRun, ha, peakRssBytes, floor, stress };
  });
}

/** Step 5: the exposition with perAssetSeries protected and none. */
async function cardinalityPhase(sim: Child<SimHello>, options: Options): Promise<Partial<Record<PerAssetSeries, Exposition>>> {
  const sizes: Partial<Record<PerAssetSeries, Exposition>> = {};
  for (const setting of ['protected', 'none'] as const) {
    sizes[setting] = await withExporter(await startExporter(sim, options, setting), async (exporter) => {
      await exporter.call<RoundReport>('round');
      return exposition(`${exporter.hello.address}/metrics`);
    });
  }
  return sizes;
}

/** Step 6: exporter H with hostile targets beside the estate's. */
async function hostilePhase(sim: Child<SimHello>, options: Options): Promise<NonNullable<EstateFigures['hostile']>> {
  const servers: HostileServer[] = [];
  try {
    for (const kind of HOSTILE_KINDS) servers.push(await startHostileServer(kind));
    const targets = servers.map((server) => ({ name: `hostile-${server.kind}`, url: server.url }));
    return await withExporter(await startExporter(sim, options, 'all', targets), async (h) => {
      const requestsPerRound = Object.fromEntries(HOSTILE_KINDS.map((kind) => [kind, [] as number[]])) as Record<HostileKind, number[]>;
      const roundSeconds: number[] = [];
      for (let round = 1; round <= options.rounds; round++) {
        const before = servers.map((server) => server.requests);
        const report = await advancedRound(sim, h);
        servers.forEach((server, i) => requestsPerRound[server.kind].push(server.requests - (before[i] as number)));
        roundSeconds.push(report.seconds);
        const healthyFailures = report.collectors.filter((c) => !c.ok && !c.target.startsWith('hostile-'));
        console.log(
          `hostile round ${round}: ${report.seconds.toFixed(1)} s; requests received: ${servers.map((s) => `${s.kind} ${requestsPerRound[s.kind].at(-1)}`).join(', ')}; healthy targets' failed collectors: ${healthyFailures.length}`,
        );
      }
      const peakRssBytes = (await h.call<MemoryReport>('memory')).maxRss;
      console.log(`hostile: exporter peak RSS ${mb(peakRssBytes)}`);
      return { peakRssBytes, roundSeconds, requestsPerRound };
    });
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}

async function benchEstate(name: string, given: Options): Promise<EstateFigures> {
  const size = ESTATES[name] as Partial<EstateSize>;
  const options = sizedFor(name, given);
  const settings =
    `exporter node options: ${options.exporterNodeOptions.join(' ') || '(none)'}; heapLimit ${options.heapLimit ?? 'default'}; ` +
    `memory cgroup ${options.memoryLimit ?? 'none'}`;
  console.log(`\n=== estate ${name}: ${JSON.stringify(size)}; ${settings}`);
  const sim = await startChild<SimHello>(SIM_CHILD, { seed: 1, size } satisfies SimChildOptions);
  const simHeapBytes = (await sim.call<NodeJS.MemoryUsage>('memory')).heapUsed;
  console.log(`simulator ready in ${sim.hello.startedInSeconds.toFixed(1)} s, ${mb(simHeapBytes)} heap`);
  try {
    const sizes = await sim.call<ListingSizes>('listingSizes', { pageSize: PAGE_SIZE, windowMs: WINDOW_MS, classTypes: CLASS_TYPES });
    const overhead = options.overhead ? await overheadPhase(sim, options) : undefined;
    const b = await exporterBPhases(sim, options);
    const exposition = { all: b.exposition, ...(options.cardinality ? await cardinalityPhase(sim, options) : {}) };
    console.log(`series by perAssetSeries: ${Object.entries(exposition).map(([setting, e]) => `${setting} ${e.series}`).join(', ')}`);
    const hostile = options.hostile ? await hostilePhase(sim, options) : undefined;
    const otlp = options.otlp ? await otlpPhase(sim, options) : undefined;
    return {
      estate: name,
      size,
      simStartSeconds: sim.hello.startedInSeconds,
      simHeapBytes,
      lower: lowerBound(sizes),
      ...b,
      exposition,
      ...(overhead
        ? {
            overhead: {
              baselineSeconds: overhead.baseline.seconds,
              baselineRequests: overhead.baseline.requests,
              bestColdSeconds: Math.min(overhead.coldSecondsC, b.cold.seconds),
              // Best of two on each side: wall times on a shared 2-core machine vary by a third from run to run.
              ratio: Math.min(overhead.coldSecondsC, b.cold.seconds) / overhead.baseline.seconds,
            },
          }
        : {}),
      ...(hostile ? { hostile } : {}),
      ...(otlp ? { otlp } : {}),
    };
  } finally {
    await sim.call('close').catch(() => undefined);
    await sim.stop();
  }
}

/** --otlp-only: step 7 alone, on a fresh simulator of the estate. */
async function benchOtlpOnly(name: string, given: Options): Promise<void> {
  const options = sizedFor(name, given);
  const size = ESTATES[name] as Partial<EstateSize>;
  console.log(`\n=== estate ${name} (OTLP forwarding only): ${JSON.stringify(size)}; exporter node options: ${options.exporterNodeOptions.join(' ') || '(none)'}`);
  const sim = await startChild<SimHello>(SIM_CHILD, { seed: 1, size } satisfies SimChildOptions);
  try {
    const figures = await otlpPhase(sim, options);
    if (figures.dropped > 0) process.exitCode = 1;
  } finally {
    await sim.call('close').catch(() => undefined);
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  let options: Options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  compileExporterChild();
  if (options.otlpOnly) {
    for (const estate of options.estates) await benchOtlpOnly(estate, options);
    return;
  }
  console.log(`estates ${options.estates.join(', ')}; proportions ${describeRatios()}`);
  const results: EstateResult[] = [];
  for (const estate of options.estates) {
    try {
      results.push(await benchEstate(estate, options));
    } catch (error) {
      // An exporter that runs out of memory ends its child: a finding of the run, reported as a FAIL.
      console.error(`estate ${estate}: ${error instanceof Error ? error.message : String(error)}`);
      results.push({ estate, error: error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error) });
    }
  }
  process.exitCode = report(results, options) ? 0 : 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof UsageError ? `${error.message}\n${USAGE}` : error);
    process.exit(2);
  });
}
