/**
 * The benchmark's output: one table with a column per estate, the budgets
 * with PASS or FAIL, and a JSON line with every figure.
 *
 * Budgets apply where they were set: the request ratios, the HA scrape p99,
 * an exporter that survives its rounds and the hostile phase's bounds on
 * every estate; the overhead ratio and the peak RSS on the 10k estate (L),
 * whose heap settings they were set with (the sizing guide derives the other
 * sizes' memory from their figures).
 */
import type { EstateSize } from '../../simulator/types';
import type { HostileKind } from './hostile';
import type { LoopDelayReport } from './loop-lateness';
import type { OtlpCostFigures, RoundCost } from './otlp-cost';
import type { Exposition, ScrapeFigures } from './scrape';

export interface RoundFigures {
  /** API requests the simulator answered during the round */
  requests: number;
  bytes: number;
  seconds: number;
  /** CPU time of the exporter's process during the round */
  cpuSeconds: number;
}

export interface EstateFigures {
  estate: string;
  size: Partial<EstateSize>;
  simStartSeconds: number;
  simHeapBytes: number;
  cold: RoundFigures;
  warm: RoundFigures;
  lower: { total: number; parts: Record<string, number> };
  /** the bare fetch of a cold round's pages, and the best cold round against it */
  overhead?: { baselineSeconds: number; baselineRequests: number; bestColdSeconds: number; ratio: number };
  /** heap in use after the warm round and a forced GC */
  heapAfterGcBytes: number;
  /** rounds exporter B completed: --rounds, then those during the scrape phases */
  roundsRun: number;
  ha?: ScrapeFigures & { intervalSeconds: number; rounds: number; loopDelay: LoopDelayReport };
  /** peak RSS of exporter B through its rounds and the HA scrapes */
  peakRssBytes: number;
  /** the machine's floor: an idle process's event-loop delay during the HA scrapes, and the same scrapes of ready bytes from it */
  floor?: { idleLoopDelay: LoopDelayReport; scrapes: ScrapeFigures & { rounds: number } };
  stress?: ScrapeFigures & { rounds: number; peakRssBytes: number };
  exposition: Partial<Record<'all' | 'protected' | 'none', Exposition>>;
  hostile?: { peakRssBytes: number; roundSeconds: number[]; requestsPerRound: Record<HostileKind, number[]> };
  otlp?: OtlpCostFigures;
}

/** An estate whose run ended early: a child exited (out of memory, say) or a step threw. */
export interface EstateError {
  estate: string;
  error: string;
}

export type EstateResult = EstateFigures | EstateError;

export interface ReportContext {
  rounds: number;
  exporterNodeOptions: string[];
}

/** The estate the overhead budget was set on. */
const BUDGET_ESTATE = '10k';
const MIB = 1024 * 1024;
/** the shipped Kubernetes manifests' memory limit (deploy/kubernetes), sized for the 50k estate */
const SHIPPED_MEMORY_LIMIT_BYTES = 1024 * MIB;
/** Budgets of issue 31 per estate: peak RSS, the HA pair's p99, the serving thread's event-loop delay. */
const SERVING_BUDGETS: Record<string, { peakRssBytes: number; haP99Ms: number }> = {
  '10k': { peakRssBytes: 300 * MIB, haP99Ms: 20 },
  '50k': { peakRssBytes: 800 * MIB, haP99Ms: 50 },
};
const LOOP_DELAY_P99_MS = 5;
const LOOP_DELAY_MAX_MS = 25;
/** enough scrapes for a p99 that is not just the slowest one */
const HA_MIN_SCRAPES = 200;
/** a misbehaving service receives at most this many requests per round ("a few hundred") */
const HOSTILE_REQUESTS_PER_ROUND = 500;

/** What the table's figures are, printed under it. */
const NOTES = [
  'API requests: what the simulator answered. CPU: user + system time of the exporter\'s process during the round.',
  'peak RSS: the exporter process\'s maxRSS; the budgeted one is read before the stress scrapes.',
  'p99: nearest rank; with fewer than 100 scrapes it is the slowest one.',
  'hostile: requests each hostile server received in each round of exporter H.',
  'floor: the same measures of a process that only sends ready bytes, under the same rounds: what this machine costs any process (not budgeted).',
];

interface Budget {
  name: string;
  value: string;
  pass: boolean;
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / MIB).toFixed(1)} MB`);
const seconds = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(2)} s`);
const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
const isFigures = (result: EstateResult): result is EstateFigures => !('error' in result);

export function budgets(f: EstateFigures, context: ReportContext): Budget[] {
  const warmShare = f.warm.requests / f.cold.requests;
  const coldRatio = f.cold.requests / f.lower.total;
  const list: Budget[] = [
    { name: 'warm-round requests <= 5% of cold', value: `${(warmShare * 100).toFixed(2)}%`, pass: warmShare <= 0.05 },
    { name: 'cold requests <= 1.2 x lower bound', value: `${coldRatio.toFixed(3)} x`, pass: coldRatio <= 1.2 },
    { name: `at least ${context.rounds} rounds without the exporter exiting`, value: `${f.roundsRun} rounds`, pass: f.roundsRun >= context.rounds },
    { name: 'peak RSS < 1 GiB, the manifests\' limit (rounds and HA scrapes)', value: mb(f.peakRssBytes), pass: f.peakRssBytes < SHIPPED_MEMORY_LIMIT_BYTES },
  ];
  const serving = SERVING_BUDGETS[f.estate];
  if (f.ha) {
    const p99Budget = serving?.haP99Ms ?? 250;
    list.push({
      name: `/metrics p99 < ${p99Budget} ms (HA pair, gzip, every ${f.ha.intervalSeconds} s, >= ${HA_MIN_SCRAPES} scrapes, during rounds)`,
      value: `${f.ha.p99Ms.toFixed(1)} ms of ${f.ha.scrapes} scrapes, ${f.ha.failures} failed`,
      pass: f.ha.p99Ms < p99Budget && f.ha.failures === 0 && f.ha.scrapes >= HA_MIN_SCRAPES,
    });
    if (serving) {
      const delay = f.ha.loopDelay;
      list.push({
        name: `serving thread's event-loop delay p99 < ${LOOP_DELAY_P99_MS} ms, max < ${LOOP_DELAY_MAX_MS} ms (during rounds)`,
        value: `${ms(delay.p99Ms)} / ${ms(delay.maxMs)} ms`,
        pass: delay.p99Ms < LOOP_DELAY_P99_MS && delay.maxMs < LOOP_DELAY_MAX_MS,
      });
    }
  }
  if (serving) list.push({ name: `peak RSS < ${mb(serving.peakRssBytes)} (rounds and HA scrapes)`, value: mb(f.peakRssBytes), pass: f.peakRssBytes < serving.peakRssBytes });
  if (f.estate === BUDGET_ESTATE && f.overhead) list.push({ name: 'overhead ratio <= 1.3', value: f.overhead.ratio.toFixed(2), pass: f.overhead.ratio <= 1.3 });
  if (f.hostile) {
    const hostile = f.hostile;
    list.push({ name: 'peak RSS with hostile targets < 1 GiB (the manifests\' limit)', value: mb(hostile.peakRssBytes), pass: hostile.peakRssBytes < SHIPPED_MEMORY_LIMIT_BYTES });
    for (const [kind, counts] of Object.entries(hostile.requestsPerRound)) {
      const most = Math.max(...counts);
      list.push({ name: `requests per round to the ${kind} server <= ${HOSTILE_REQUESTS_PER_ROUND}`, value: String(most), pass: most <= HOSTILE_REQUESTS_PER_ROUND });
    }
  }
  if (f.otlp) {
    // Not a cost budget: an event dropped means the OTLP figures do not measure the whole forwarding.
    list.push({ name: 'OTLP forwarding: no event dropped', value: `${f.otlp.dropped} dropped`, pass: f.otlp.dropped === 0 });
  }
  return list;
}

function table(all: EstateFigures[]): string[] {
  const settings = ['all', 'protected', 'none'] as const;
  const perSetting = (f: EstateFigures, value: (e: Exposition) => string) => settings.map((s) => (f.exposition[s] ? value(f.exposition[s]) : '-')).join(' / ');
  const round = (r: RoundFigures) => `${r.requests} req, ${seconds(r.seconds)} wall, ${seconds(r.cpuSeconds)} CPU`;
  const rows: Array<[string, (f: EstateFigures) => string]> = [
    ['assets / copies per asset / VMs / storage systems', (f) => `${f.size.assets} / ${f.size.copiesPerAsset} / ${f.size.replicatedVms} / ${f.size.storageSystems}`],
    ['activities per day / audit entries', (f) => `${f.size.activitiesPerDay} / ${f.size.auditEntries}`],
    ['simulator: start, heap (not the exporter\'s)', (f) => `${seconds(f.simStartSeconds)}, ${mb(f.simHeapBytes)}`],
    ['cold round: API requests, wall, exporter CPU', (f) => round(f.cold)],
    ['warm round: API requests, wall, exporter CPU', (f) => round(f.warm)],
    ['cold round: bytes read from the APIs', (f) => mb(f.cold.bytes)],
    ['lower bound (pages); cold requests / bound', (f) => `${f.lower.total}; ${(f.cold.requests / f.lower.total).toFixed(3)}`],
    ['warm / cold requests', (f) => `${((f.warm.requests / f.cold.requests) * 100).toFixed(2)}%`],
    ['bare fetch of a cold round\'s pages', (f) => seconds(f.overhead?.baselineSeconds)],
    ['overhead ratio (best cold round / bare)', (f) => (f.overhead ? f.overhead.ratio.toFixed(2) : '-')],
    ['serving thread heap in use after a round and a forced GC', (f) => mb(f.heapAfterGcBytes)],
    ['peak RSS: rounds and HA scrapes', (f) => mb(f.peakRssBytes)],
    ['series, perAssetSeries all / protected / none', (f) => perSetting(f, (e) => String(e.series))],
    ['/metrics MB plain, all / protected / none', (f) => perSetting(f, (e) => (e.plainBytes / MIB).toFixed(2))],
    ['/metrics MB gzip, all / protected / none', (f) => perSetting(f, (e) => (e.gzipBytes / MIB).toFixed(2))],
    ['HA pair scrapes: p50 / p99 ms (scrapes, rounds)', (f) => (f.ha ? `${ms(f.ha.p50Ms)} / ${ms(f.ha.p99Ms)} (${f.ha.scrapes}, ${f.ha.rounds})` : '-')],
    ['serving thread event-loop delay during HA scrapes: p99 / max ms', (f) => (f.ha ? `${ms(f.ha.loopDelay.p99Ms)} / ${ms(f.ha.loopDelay.maxMs)}` : '-')],
    ['floor: an idle process\'s event-loop delay meanwhile: p99 / max ms', (f) => (f.floor ? `${ms(f.floor.idleLoopDelay.p99Ms)} / ${ms(f.floor.idleLoopDelay.maxMs)}` : '-')],
    ['floor: HA pair scraping ready bytes, idle process: p50 / p99 ms', (f) => (f.floor ? `${ms(f.floor.scrapes.p50Ms)} / ${ms(f.floor.scrapes.p99Ms)} (${f.floor.scrapes.scrapes})` : '-')],
    ['stress, 20 back to back: p50 / p99 ms', (f) => (f.stress ? `${ms(f.stress.p50Ms)} / ${ms(f.stress.p99Ms)} (${f.stress.scrapes})` : '-')],
    ['peak RSS after the stress', (f) => mb(f.stress?.peakRssBytes)],
    ['hostile: peak RSS beside the estate', (f) => mb(f.hostile?.peakRssBytes)],
    ...(['endless-body', 'pages-forever', 'never-answers'] as const).map(
      (kind): [string, (f: EstateFigures) => string] => [`hostile: requests per round, ${kind}`, (f) => f.hostile?.requestsPerRound[kind].join(', ') ?? '-'],
    ),
    ['OTLP off / on, cold round: s wall, s CPU', (f) => offOn(f.otlp?.cold)],
    ['OTLP off / on, an hour later: s wall, s CPU', (f) => offOn(f.otlp?.hourLater)],
    ['OTLP an hour later: spans / log records sent', (f) => (f.otlp ? `${f.otlp.hourLater.spans} / ${f.otlp.hourLater.logs}` : '-')],
    ['OTLP cold round, 24 h backfill: s wall, s CPU', (f) => (f.otlp ? wallCpu(f.otlp.backfill.round) : '-')],
    ['OTLP 24 h backfill: spans / log records sent', (f) => (f.otlp ? `${f.otlp.backfill.spans} / ${f.otlp.backfill.logs}` : '-')],
  ];
  const cells = [['', ...all.map((f) => f.estate)], ...rows.map(([label, value]) => [label, ...all.map(value)])];
  const widths = (cells[0] as string[]).map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0] as number) : cell.padStart(widths[column] as number))).join('  '));
}

const wallCpu = (c: RoundCost): string => `${c.seconds.toFixed(2)}, ${c.cpuSeconds.toFixed(2)}`;
const offOn = (pair: { off: RoundCost; on: RoundCost } | undefined): string => (pair ? `${wallCpu(pair.off)} / ${wallCpu(pair.on)}` : '-');

/** Prints the table, the budgets and the JSON line; false when a budget failed or an estate's run ended early. */
export function report(results: EstateResult[], context: ReportContext): boolean {
  const figures = results.filter(isFigures);
  console.log(`\n=== results (exporter node options: ${context.exporterNodeOptions.join(' ') || '(none)'})`);
  if (figures.length > 0) {
    for (const line of table(figures)) console.log(line);
    for (const note of NOTES) console.log(`  ${note}`);
  }
  for (const f of figures) console.log(`\nlower bound of ${f.estate}: ${Object.entries(f.lower.parts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  let ok = true;
  const checked: Record<string, Budget[]> = {};
  for (const result of results) {
    const list = isFigures(result) ? budgets(result, context) : [{ name: 'the estate\'s run completes (no child exited)', value: result.error, pass: false }];
    checked[result.estate] = list;
    console.log(`\n=== budgets on ${result.estate}`);
    for (const budget of list) {
      console.log(`${budget.pass ? 'PASS' : 'FAIL'}  ${budget.name}: ${budget.value}`);
      ok &&= budget.pass;
    }
  }
  console.log(`\n${JSON.stringify({ context, results, budgets: checked })}`);
  return ok;
}
