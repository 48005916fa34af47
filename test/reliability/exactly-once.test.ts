/**
 * Exactly-once counters through failed runs: the activities and audit-log
 * counters equal the simulator's truth (what completed or changed after the
 * exporter started), whichever page of whichever run fails and however it
 * fails (500, malformed body, reset connection, request timeout, the run's
 * own time limit between two pages), and across a restart between pages.
 *
 * Each case fails one chosen request of one chosen run and checks that this
 * run did fail; the runs around it are fault-free, and the simulated clock
 * moves between runs so that activities and audit entries keep appearing.
 */
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { activitiesCollector } from '../../src/collectors/management/activities';
import { auditLogsCollector } from '../../src/collectors/management/audit-logs';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { ExporterRuntime } from '../../src/runtime';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { FaultRule } from '../../simulator/types';
import { silentLogger } from '../support/collect';
import { truthBetween, valuesOf } from './soak-driver';

const MIN = 60_000;
const WINDOW_MS = 60 * MIN;
/** simulated time between runs: long enough for several activities and audit entries that count to appear */
const ADVANCE_MS = 8 * MIN;
const COLLECTORS = [activitiesCollector, auditLogsCollector];
const PATHS = { activities: '/api/v2/activities', 'audit-logs': '/api/v2/audit-logs' } as const;
type CollectorName = keyof typeof PATHS;

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 24,
    size: { assets: 10, copiesPerAsset: 1, activitiesPerDay: 4_000, auditEntries: 50, auditEntriesPerDay: 4_000, replicatedVms: 1, storageSystems: 1 },
    startTime: new Date('2026-11-18T10:00:00Z'),
  });
});
afterAll(async () => {
  await sim.close();
});

/**
 * One management target with only the two counting collectors. One attempt
 * per request, so that the chosen fault fails its run; request and run time
 * limits far beyond what a loopback page takes, except where a case lowers them.
 */
function config(limits: { requestTimeout?: string; runTimeout?: string } = {}): ExporterConfig {
  const timeout = limits.runTimeout ?? '60s';
  return parseConfig({
    collection: { window: WINDOW_MS / 1000, activityClassTypes: ['JOB_GROUP', 'JOB'] },
    targets: [
      {
        name: 'mgmt',
        kind: 'management',
        url: sim.urls.management,
        username: sim.username,
        password: sim.password,
        pageSize: 20,
        maxAttempts: 1,
        requestTimeout: limits.requestTimeout ?? '30s',
        collectors: { activities: { timeout }, 'audit-logs': { timeout } },
      },
    ],
  });
}

interface Exporter {
  runtime: ExporterRuntime;
  renderer: MetricsRenderer;
  /** the simulator's clock when this exporter was started: its counters count what comes after */
  startedAt: number;
}

function startExporter(exporterConfig: ExporterConfig = config()): Exporter {
  const runtime = new ExporterRuntime(exporterConfig, {
    logger: silentLogger,
    now: () => sim.clock.now(),
    collectorsFor: (kind) => (kind === 'management' ? COLLECTORS : []),
  });
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => exporterConfig.collection.staleAfter);
  return { runtime, renderer, startedAt: sim.clock.now().getTime() };
}

/** One round of both collectors; the results by collector name. */
async function round(exporter: Exporter): Promise<Record<CollectorName, string>> {
  const [activities, audit] = await exporter.runtime.runOnce();
  return { activities: activities as string, 'audit-logs': audit as string };
}

/** A round with `fault` on the chosen request of the collector's listing, which must make its run fail. */
async function failingRound(exporter: Exporter, collector: CollectorName, request: number, fault: FaultRule['fault']): Promise<void> {
  sim.faults.add({ api: 'management', path: PATHS[collector], skip: request, times: 1, fault });
  try {
    const results = await round(exporter);
    expect(results[collector]).toBe('failure');
  } finally {
    sim.faults.clear();
  }
}

/**
 * Fault-free rounds until both collectors succeed (one, unless the machine is
 * so loaded that a limit fires anyway: exactness holds whatever fails when).
 */
async function settledRound(exporter: Exporter): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const results = await round(exporter);
    if (results.activities === 'success' && results['audit-logs'] === 'success') return;
  }
  throw new Error('five fault-free rounds in a row failed');
}

const nonZero = (values: Map<string, number> | Record<string, number>): Record<string, number> =>
  Object.fromEntries([...(values instanceof Map ? values : Object.entries(values))].filter(([, value]) => value !== 0));

/** Counters against the truth since the exporter started, windows against the window's truth. */
async function expectExact(exporter: Exporter): Promise<void> {
  const text = await exporter.renderer.render();
  const now = sim.clock.now().getTime();
  const counted = truthBetween(sim, exporter.startedAt, now);
  const windowed = truthBetween(sim, now - WINDOW_MS - 1, now);
  expect(nonZero(valuesOf(text, 'dataprotect_activities_completed_total', ['class_type', 'category', 'result']))).toEqual(nonZero(counted.completed));
  expect(nonZero(valuesOf(text, 'dataprotect_audit_events_total', ['audit_type']))).toEqual(nonZero(counted.audit));
  expect(nonZero(valuesOf(text, 'dataprotect_activities_window', ['class_type', 'category', 'result']))).toEqual(nonZero(windowed.completed));
  expect(nonZero(valuesOf(text, 'dataprotect_audit_events_window', ['audit_type']))).toEqual(nonZero(windowed.audit));
  // Something was counted: equality with an empty truth would prove little.
  expect(Object.values(counted.completed).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
  expect(Object.values(counted.audit).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
}

const FAULTS: Array<[string, FaultRule['fault']]> = [
  ['a 500', { kind: 'status', status: 500 }],
  ['a malformed body', { kind: 'malformed' }],
  ['a reset connection', { kind: 'reset' }],
];

/** [run, request]: the first run's first and third requests, the second run's second (each run has several pages). */
const WHEN: Array<[number, number]> = [
  [1, 0],
  [1, 2],
  [2, 1],
];

/**
 * Three runs of a new exporter, the clock moving between them; the chosen
 * one is `failing` (a round that must fail), the others fault-free. Then the
 * counters must be exact.
 */
async function threeRunsOneFailing(exporterConfig: ExporterConfig, failingRun: number, failing: (exporter: Exporter) => Promise<void>): Promise<void> {
  const exporter = startExporter(exporterConfig);
  try {
    for (let run = 1; run <= 3; run++) {
      if (run > 1) sim.clock.advance(ADVANCE_MS);
      if (run === failingRun) await failing(exporter);
      else await settledRound(exporter);
    }
    await expectExact(exporter);
  } finally {
    await exporter.runtime.stop();
  }
}

describe.each(Object.keys(PATHS) as CollectorName[])('%s: counters exact after a run fails part-way', (collector) => {
  describe.each(FAULTS)('%s', (_, fault) => {
    it.each(WHEN)('in run %i, request %i', (failingRun, request) =>
      threeRunsOneFailing(config(), failingRun, (exporter) => failingRound(exporter, collector, request, fault)),
    );
  });

  it.each(WHEN)('request timeout in run %i, request %i', (failingRun, request) =>
    // The request hangs: only the request time limit ends it. A limit this short may also end
    // a slow page before it; the run fails then, all the same.
    threeRunsOneFailing(config({ requestTimeout: '1s' }), failingRun, (exporter) => failingRound(exporter, collector, request, { kind: 'hang' })),
  );

  it.each(WHEN)('the run\'s time limit between pages, in run %i at request %i; a reload raises the limit', (failingRun, request) =>
    // The request hangs past the run's own time limit, which ends the run between two pages.
    // The reload that raises the limit keeps the state and when collecting started.
    threeRunsOneFailing(config({ runTimeout: '2s' }), failingRun, async (exporter) => {
      await failingRound(exporter, collector, request, { kind: 'hang' });
      const applied = await exporter.runtime.applyConfig(config());
      expect(applied.rescheduled).toEqual(['mgmt']);
    }),
  );

  it('a restart between pages: the new exporter counts what comes after its own start, its first run failing too', async () => {
    const before = startExporter(config({ runTimeout: '1s' }));
    await failingRound(before, collector, 2, { kind: 'hang' });
    await before.runtime.stop();
    sim.clock.advance(ADVANCE_MS);
    const after = startExporter();
    try {
      await failingRound(after, collector, 2, { kind: 'status', status: 500 });
      for (let run = 2; run <= 3; run++) {
        sim.clock.advance(ADVANCE_MS);
        await settledRound(after);
      }
      await expectExact(after);
    } finally {
      await after.runtime.stop();
    }
  });
});
