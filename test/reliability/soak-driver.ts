/**
 * The soak: many collection rounds of every collector of the three target
 * kinds against the simulator while it injects random faults (401 by token
 * expiry, 429, 503, 500 in the middle of paging, malformed bodies, timeouts by
 * latency and by hanging, reset connections) and its clock moves on; a restart
 * of the exporter in the middle. Shared by test/reliability/soak.test.ts (a
 * small estate, bounded for CI) and bench/soak.ts (longer, in a child process
 * with --expose-gc for the memory figures).
 *
 * The checks it returns are against the simulator's truth: after a final
 * fault-free round, every counter equals what appeared in the estate since
 * that exporter started, and every window gauge what the window holds.
 *
 * Requests have a real time limit (REQUEST_TIMEOUT_MS), which is what the
 * latency and hang faults run into; on a loaded machine it can also end
 * pages no fault was planned for. Which runs fail is then up to the machine, not the seed, and
 * the checks do not depend on it: counters must be exact whatever failed
 * when. A round the checks rely on (each exporter's first, the one before
 * the restart, the last) is repeated until every collector succeeds in it,
 * so that it reads what it is there to read.
 */
import pino from 'pino';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { KNOWN_COLLECTORS } from '../../src/collectors/names';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { ExporterRuntime } from '../../src/runtime';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { SimulatorUrls } from '../../simulator/types';
import { SeededRandom } from '../../simulator/core/random';
import type { ApiName, EstateSize, FaultRule } from '../../simulator/types';

export interface SoakOptions {
  rounds: number;
  seed: number;
  size: Partial<EstateSize>;
  /** simulated time between rounds */
  advanceMs: number;
  /** chance that a round runs with faults */
  faultyRoundShare: number;
  /** the round before which the exporter is replaced by a new one (no restart when undefined) */
  restartBeforeRound?: number;
  /** heapUsed after a full GC is sampled every this many rounds, when global.gc exists */
  memorySampleEvery?: number;
  log?: (line: string) => void;
  /** the simulator to run against; default: one started in this process */
  simulator?: (seed: number, size: Partial<EstateSize>) => Promise<SimControl>;
}

/**
 * What the soak needs of the simulator. In-process for the jest test; over
 * IPC to a child process for bench/soak.ts, so that the heap figures are the
 * exporter's alone.
 */
export interface SimControl {
  urls: SimulatorUrls;
  username: string;
  password: string;
  /** the estate's start (simulated clock) */
  startTimeMs: number;
  now(): Promise<number>;
  advance(ms: number): Promise<void>;
  addFault(rule: FaultRule): Promise<void>;
  tokenExpiresAfterRequests(count: number | undefined): Promise<void>;
  clearFaults(): Promise<void>;
  truth(sinceMs: number, untilMs: number): Promise<Truth>;
  close(): Promise<void>;
}

export interface Truth {
  completed: Record<string, number>;
  audit: Record<string, number>;
}

/** The in-process simulator behind SimControl. */
export async function inProcessSimulator(seed: number, size: Partial<EstateSize>): Promise<SimControl> {
  const sim = await startSimulator({ seed, size });
  return {
    urls: sim.urls,
    username: sim.username,
    password: sim.password,
    startTimeMs: sim.estate.management.startTime.getTime(),
    now: async () => sim.clock.now().getTime(),
    advance: async (ms) => sim.clock.advance(ms),
    addFault: async (rule) => sim.faults.add(rule),
    tokenExpiresAfterRequests: async (count) => {
      sim.faults.tokenExpiresAfterRequests = count;
    },
    clearFaults: async () => sim.faults.clear(),
    truth: async (sinceMs, untilMs) => truthBetween(sim, sinceMs, untilMs),
    close: () => sim.close(),
  };
}

/** Counter or gauge values by their label values joined with \0 (label order as rendered). */
export type Values = Map<string, number>;

export interface CounterCheck {
  metric: string;
  expected: Record<string, number>;
  actual: Record<string, number>;
}

export interface SoakReport {
  rounds: number;
  faultsInjected: number;
  failedRuns: number;
  unhandled: string[];
  /** heapUsed (bytes) after GC at each sample, empty without global.gc */
  heapSamples: number[];
  /** the first exporter's counters right after the replacing exporter's first round: all zero if nothing was replayed */
  afterRestart?: { counters: CounterCheck[]; windows: CounterCheck[] };
  /** the first exporter just before the restart, after a fault-free round */
  beforeRestart?: { counters: CounterCheck[]; windows: CounterCheck[] };
  /** fault-free rounds repeated because a collector failed in them anyway (a request time limit on a loaded machine) */
  repeatedRounds: number;
  final: { counters: CounterCheck[]; windows: CounterCheck[] };
  /** fault-free rounds run again because a collector run failed in them (a time limit on a loaded machine) */
  simulatedHours: number;
  seconds: number;
}

const CLASS_TYPES = ['JOB_GROUP', 'JOB'] as const;
/**
 * The requests' time limit, which the latency and hang faults run into. Each
 * of those faults costs the round this long, so it is short; but every other
 * page, built by the simulator on the same event loop, must come well within
 * it on a loaded machine too (a 300 ms limit did not: ten fault-free first
 * rounds in a row had a page cut short beside two busy loops).
 */
const REQUEST_TIMEOUT_MS = 1_000;
/** fault-free rounds tried before a soak gives up on a round it relies on */
const MAX_SETTLING_ROUNDS = 10;
const WINDOW_MS = 6 * 3_600_000;
const logger = pino({ level: 'silent' });

function config(sim: Pick<SimControl, 'urls' | 'username' | 'password'>): ExporterConfig {
  const common = {
    username: sim.username,
    password: sim.password,
    pageSize: 25, // small pages: more paging, so faults land mid-listing
    requestTimeout: `${REQUEST_TIMEOUT_MS}ms`,
    maxAttempts: 2, // one retry: faults are survived by retries or by the next round, and rounds stay short
  };
  // Each collector gets a time limit, so a fault never holds a round for long.
  const limits = (kind: keyof typeof KNOWN_COLLECTORS) => Object.fromEntries(KNOWN_COLLECTORS[kind].map((name) => [name, { timeout: '6s' }]));
  return parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    collection: { window: WINDOW_MS / 1000, activityClassTypes: [...CLASS_TYPES], staleAfter: '30d' },
    targets: [
      { name: 'mgmt', kind: 'management', url: sim.urls.management, ...common, collectors: limits('management') },
      { name: 'repl', kind: 'replication', url: sim.urls.replication, ...common, collectors: limits('replication') },
      { name: 'store', kind: 'storage', url: sim.urls.storageCenter, storageMode: 'center', ...common, collectors: limits('storage') },
    ],
  });
}

export interface RunningExporter {
  runtime: ExporterRuntime;
  renderer: MetricsRenderer;
}

/** An exporter whose clock is the simulator's (`now` reads the clock as last seen: it only moves between rounds). */
export function startExporterFor(sim: SimControl, clock: { ms: number }): RunningExporter {
  const exporterConfig = config(sim);
  const runtime = new ExporterRuntime(exporterConfig, { logger, now: () => new Date(clock.ms) });
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => exporterConfig.collection.staleAfter);
  return { runtime, renderer };
}

/** The values of one metric family in an exposition text, keyed by the given labels' values. */
export function valuesOf(text: string, metric: string, labels: readonly string[]): Values {
  const values: Values = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const close = line.lastIndexOf('}');
    const labelText = line.slice(metric.length + 1, close);
    const found: Record<string, string> = {};
    for (const match of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    values.set(labels.map((label) => found[label] ?? '').join('\u0000'), Number(line.slice(close + 2)));
  }
  return values;
}

/** Without zero entries (a label set once seen stays at 0), as a plain object for readable diffs. */
function nonZero(values: Values | Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of values instanceof Map ? values : Object.entries(values)) if (value !== 0) out[key] = value;
  return out;
}

/** Completed activities (by class type, category and result) and audit entries (by type) with event time in (since, until]. */
export function truthBetween(sim: RunningSimulator, sinceMs: number, untilMs: number): Truth {
  const management = sim.estate.management;
  const completed: Record<string, number> = {};
  for (const activity of management.activities({ since: new Date(sinceMs - 7 * 86_400_000) })) {
    if (!(CLASS_TYPES as readonly string[]).includes(activity.classType) || activity.state !== 'COMPLETED' || !activity.endTime) continue;
    const end = Date.parse(activity.endTime);
    if (end <= sinceMs || end > untilMs) continue;
    const key = `${activity.classType}\u0000${activity.category}\u0000${activity.result.status}`;
    completed[key] = (completed[key] ?? 0) + 1;
  }
  const audit: Record<string, number> = {};
  for (const entry of management.auditEntries({ since: new Date(sinceMs + 1), until: new Date(untilMs + 1) })) {
    audit[entry.auditType] = (audit[entry.auditType] ?? 0) + 1;
  }
  return { completed, audit };
}

/** The exporter's counters and window gauges against the truth since `startedAtMs` (counters) and over the window (gauges). */
export async function checkAgainstTruth(sim: SimControl, exporter: RunningExporter, startedAtMs: number): Promise<{ counters: CounterCheck[]; windows: CounterCheck[] }> {
  const text = await exporter.renderer.render();
  const now = await sim.now();
  const counted = await sim.truth(startedAtMs, now);
  const windowed = await sim.truth(now - WINDOW_MS - 1, now);
  const check = (metric: string, labels: string[], expected: Record<string, number>): CounterCheck => ({
    metric,
    expected: nonZero(expected),
    actual: nonZero(valuesOf(text, metric, labels)),
  });
  return {
    counters: [
      check('dataprotect_activities_completed_total', ['class_type', 'category', 'result'], counted.completed),
      check('dataprotect_audit_events_total', ['audit_type'], counted.audit),
    ],
    windows: [
      check('dataprotect_activities_window', ['class_type', 'category', 'result'], windowed.completed),
      check('dataprotect_audit_events_window', ['audit_type'], windowed.audit),
    ],
  };
}

/** One random fault rule: what real sources do to a collector. */
async function randomFault(random: SeededRandom, sim: SimControl): Promise<string> {
  const api = random.pick<ApiName>(['management', 'management', 'replication', 'storage']);
  const skip = random.int(0, 6);
  const times = random.int(1, 2);
  const kind = random.int(0, 7);
  const add = (fault: FaultRule['fault'], path?: string) => sim.addFault({ api, skip, times, fault, ...(path ? { path } : {}) });
  switch (kind) {
    case 0:
      await sim.tokenExpiresAfterRequests(random.int(3, 15)); // 401 on the management service, re-login expected
      return 'token expiry';
    case 1:
      await add({ kind: 'status', status: 429, retryAfterSeconds: 0 });
      return `429 on ${api}`;
    case 2:
      await add({ kind: 'status', status: 503 });
      return `503 on ${api}`;
    case 3:
      await add({ kind: 'status', status: 500 }, api === 'management' ? random.pick(['/assets', '/activities', '/audit-logs', '/copies']) : undefined);
      return `500 mid-paging on ${api}`;
    case 4:
      await add({ kind: 'malformed' });
      return `malformed body on ${api}`;
    case 5:
      await add({ kind: 'latency', ms: REQUEST_TIMEOUT_MS * 1.5 }); // beyond the request time limit
      return `timeout (latency) on ${api}`;
    case 6:
      await add({ kind: 'hang' });
      return `hang on ${api}`;
    default:
      await add({ kind: 'reset' });
      return `reset on ${api}`;
  }
}

function heapAfterGc(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const unhandled: string[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason instanceof Error ? (reason.stack ?? reason.message) : String(reason));
  process.on('unhandledRejection', onUnhandled);

  const sim = await (options.simulator ?? inProcessSimulator)(options.seed, options.size);
  const random = new SeededRandom(`soak/${options.seed}`);
  const clock = { ms: await sim.now() };
  let exporter = startExporterFor(sim, clock);
  let startedAt = clock.ms;
  const report: SoakReport = {
    rounds: 0,
    faultsInjected: 0,
    failedRuns: 0,
    unhandled,
    heapSamples: [],
    repeatedRounds: 0,
    final: { counters: [], windows: [] },
    simulatedHours: 0,
    seconds: 0,
  };
  try {
    // Fault-free rounds, until every collector has succeeded in one.
    const settle = async (): Promise<void> => {
      for (let attempt = 1; ; attempt++) {
        const results = await exporter.runtime.runOnce();
        if (!results.includes('failure')) return;
        if (attempt === MAX_SETTLING_ROUNDS) throw new Error(`${MAX_SETTLING_ROUNDS} fault-free rounds in a row had a collector fail`);
        report.repeatedRounds += 1;
      }
    };
    // The first round sees the estate as it is (no history counted): fault-free.
    await settle();
    for (let round = 1; round <= options.rounds; round++) {
      if (round === options.restartBeforeRound) {
        // A fault-free round, then the old exporter's figures are checked and it stops.
        await settle();
        report.beforeRestart = await checkAgainstTruth(sim, exporter, startedAt);
        await exporter.runtime.stop();
        exporter = startExporterFor(sim, clock);
        startedAt = clock.ms;
        await settle();
        report.afterRestart = await checkAgainstTruth(sim, exporter, startedAt);
        log(`restarted before round ${round}`);
      }
      await sim.advance(options.advanceMs);
      clock.ms += options.advanceMs;
      const faults: string[] = [];
      if (random.chance(options.faultyRoundShare)) {
        for (let n = random.chance(0.25) ? 2 : 1; n > 0; n--) faults.push(await randomFault(random, sim));
      }
      report.faultsInjected += faults.length;
      const results = await exporter.runtime.runOnce();
      await sim.clearFaults();
      report.failedRuns += results.filter((result) => result === 'failure').length;
      report.rounds = round;
      if (options.memorySampleEvery && round % options.memorySampleEvery === 0) {
        const heap = heapAfterGc();
        if (heap !== undefined) report.heapSamples.push(heap);
      }
      if (round % 50 === 0) log(`round ${round}: ${report.faultsInjected} faults so far, ${report.failedRuns} failed collector runs`);
    }
    // Faults cleared: one more round reads everything the faulty rounds may have missed.
    await settle();
    report.final = await checkAgainstTruth(sim, exporter, startedAt);
    report.simulatedHours = (clock.ms - sim.startTimeMs) / 3_600_000;
  } finally {
    await exporter.runtime.stop();
    await sim.close();
    process.off('unhandledRejection', onUnhandled);
  }
  report.seconds = (performance.now() - started) / 1000;
  return report;
}
