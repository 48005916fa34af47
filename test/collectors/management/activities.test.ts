/**
 * activities collector: the window and running gauges equal the simulator's
 * truth, and across runs with the clock advancing the counters, histogram and
 * transferred bytes equal exactly the activities that completed since the
 * first run (never more).
 */
import { activitiesCollector, type ActivitiesState } from '../../../src/collectors/management/activities';
import type { CollectResult, HistogramSample } from '../../../src/collectors/types';
import { ACTIVITY_DURATION_BUCKETS } from '../../../src/metrics/catalog';
import type { RunningSimulator } from '../../../simulator';
import type { Activity } from '../../../simulator/management';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const MIN = 60_000;
const HOUR = 60 * MIN;
const WINDOW = 24 * HOUR;
const CLASS_TYPES = new Set(['JOB', 'JOB_GROUP']);
const ACTIVE = new Set(['QUEUED', 'RUNNING', 'PENDING_CANCELLATION']);

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 1500, activitiesPerDay: 3000, auditEntries: 50 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

const now = (): number => sim.clock.now().getTime();
const counted = (): Activity[] => sim.estate.management.activities().filter((a) => CLASS_TYPES.has(a.classType));
const endOf = (a: Activity): number => Date.parse(a.endTime as string);

function tally(items: Activity[], key: (a: Activity) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of items) out.set(key(a), (out.get(key(a)) ?? 0) + 1);
  return out;
}

/** the emitted series as key -> value, zero-valued ones left out (known label sets stay at 0) */
function series(result: CollectResult<unknown>, name: string, labels: string[], keepZero = false): Map<string, number> {
  return new Map(
    samplesNamed(result, name)
      .filter((s) => keepZero || s.value !== 0)
      .map((s) => [labels.map((label) => s.labels[label]).join('/'), s.value]),
  );
}

function completedBetween(from: number, to: number): Activity[] {
  return counted().filter((a) => a.state === 'COMPLETED' && endOf(a) > from && endOf(a) <= to);
}

function expectCountersEqual(result: CollectResult<unknown>, completed: Activity[]): void {
  // JOB_GROUP and JOB kept apart (class_type): a policy run is one of each per asset in the same category
  expect(series(result, 'dataprotect_activities_completed_total', ['class_type', 'category', 'result'])).toEqual(
    tally(completed, (a) => `${a.classType}/${a.category}/${a.result.status}`),
  );
  const bytes = new Map<string, number>();
  for (const a of completed) bytes.set(`${a.classType}/${a.category}`, (bytes.get(`${a.classType}/${a.category}`) ?? 0) + a.stats.bytesTransferred);
  expect(series(result, 'dataprotect_activity_transferred_bytes_total', ['class_type', 'category'])).toEqual(new Map([...bytes].filter(([, v]) => v !== 0)));

  const histograms = new Map((result.histograms ?? []).map((hs: HistogramSample) => [`${hs.labels.class_type}/${hs.labels.category}`, hs]));
  for (const [classCategory, n] of tally(completed, (a) => `${a.classType}/${a.category}`)) {
    const durations = completed.filter((a) => `${a.classType}/${a.category}` === classCategory).map((a) => a.duration / 1000);
    const histogram = histograms.get(classCategory) as HistogramSample;
    expect(histogram.count).toBe(n);
    expect(histogram.sum).toBeCloseTo(durations.reduce((x, y) => x + y, 0), 6);
    expect(histogram.bounds).toEqual(ACTIVITY_DURATION_BUCKETS);
    expect(histogram.bucketCounts).toEqual(ACTIVITY_DURATION_BUCKETS.map((bound) => durations.filter((d) => d <= bound).length));
  }
  for (const histogram of histograms.values()) {
    if (!completed.some((a) => a.classType === histogram.labels.class_type && a.category === histogram.labels.category)) expect(histogram.count).toBe(0);
  }
}

function expectGaugesEqual(result: CollectResult<unknown>): void {
  const t = now();
  const inWindow = counted().filter((a) => a.state === 'COMPLETED' && endOf(a) >= t - WINDOW && endOf(a) <= t);
  expect(series(result, 'dataprotect_activities_window', ['class_type', 'category', 'result'])).toEqual(tally(inWindow, (a) => `${a.classType}/${a.category}/${a.result.status}`));
  const running = counted().filter((a) => ACTIVE.has(a.state));
  expect(series(result, 'dataprotect_activities', ['class_type', 'category', 'state'])).toEqual(tally(running, (a) => `${a.classType}/${a.category}/${a.state}`));
}

describe('activities collector', () => {
  let state: ActivitiesState | undefined;
  let firstRunAt = 0;

  it('first run: window and running gauges from the service, counters at zero (no history replayed)', async () => {
    firstRunAt = now();
    const result = await run(activitiesCollector, sim, h);
    expectGaugesEqual(result);
    expect(series(result, 'dataprotect_activities_window', ['class_type', 'category', 'result']).size).toBeGreaterThan(5);
    expect(series(result, 'dataprotect_activities', ['class_type', 'category', 'state']).size).toBeGreaterThan(0);
    // a policy run is one JOB_GROUP plus one JOB per asset in the same category: both levels, apart
    const protect = samplesNamed(result, 'dataprotect_activities_window').filter((s) => s.labels.category === 'PROTECT');
    expect(new Set(protect.map((s) => s.labels.class_type))).toEqual(new Set(['JOB_GROUP', 'JOB']));
    const totals = samplesNamed(result, 'dataprotect_activities_completed_total');
    expect(totals.length).toBeGreaterThan(0);
    expect(totals.every((s) => s.value === 0)).toBe(true);
    expect((result.histograms ?? []).every((hs) => hs.count === 0)).toBe(true);
    // TASK level is left out by default
    expect(samplesNamed(result, 'dataprotect_activities_window').reduce((sum, s) => sum + s.value, 0)).toBe(
      counted().filter((a) => a.state === 'COMPLETED' && endOf(a) >= now() - WINDOW).length,
    );
    state = result.state;
  });

  it('keeps the admitted activities for OTLP only when activities are forwarded, and history only as far back as the backfill', async () => {
    const forwarded = await run(activitiesCollector, sim, h, { forwards: { activities: true, auditEntries: false, historyAfter: -Infinity } });
    const inWindow = counted().filter((a) => a.state === 'COMPLETED' && endOf(a) >= now() - WINDOW);
    expect(forwarded.events?.activities?.map((a) => a.id).sort()).toEqual(inWindow.map((a) => a.id).sort());
    // otlp.backfill 2h: older history is not kept, but for the jobs (the forwarder parents their tasks by them)
    const historyAfter = now() - 2 * HOUR;
    const recent = await run(activitiesCollector, sim, h, { forwards: { activities: true, auditEntries: false, historyAfter } });
    const kept = inWindow.filter((a) => endOf(a) > historyAfter);
    const jobs = inWindow.filter((a) => a.classType === 'JOB' && endOf(a) <= historyAfter);
    expect(kept.length + jobs.length).toBeLessThan(inWindow.length);
    expect(kept.filter((a) => a.classType !== 'JOB').length).toBeGreaterThan(0);
    expect(recent.events?.activities?.map((a) => a.id).sort()).toEqual(kept.map((a) => a.id).sort());
    // the older jobs only parent their tasks: not sent
    expect(recent.events?.jobs?.map((a) => a.id).sort()).toEqual(jobs.map((a) => a.id).sort());
    expect(jobs.length).toBeGreaterThan(0);
    expectGaugesEqual(recent);
    const unforwarded = await run(activitiesCollector, sim, h, { forwards: { activities: false, auditEntries: true, historyAfter: -Infinity } });
    expect(unforwarded.events?.activities).toBeUndefined();
    expectGaugesEqual(unforwarded);
  });

  it('counts each activity completed since the first run exactly once across runs and overlapping reads', async () => {
    for (const advance of [0, 7 * MIN, 20 * MIN, 45 * MIN, 3 * HOUR]) {
      sim.clock.advance(advance);
      const result = await run(activitiesCollector, sim, h, { state });
      expectCountersEqual(result, completedBetween(firstRunAt, now()));
      expectGaugesEqual(result);
      state = result.state;
    }
    expect(completedBetween(firstRunAt, now()).length).toBeGreaterThan(100);
  });

  it('counts a completion that shows up late, inside the overlap, once; and an activity followed while running', async () => {
    const t = now();
    const late = sim.estate.management.addActivity({
      category: 'RESTORE',
      classType: 'JOB',
      createTime: new Date(t - 8 * MIN),
      startTime: new Date(t - 7 * MIN),
      endTime: new Date(t - 3 * MIN),
      resultStatus: 'FAILED',
      bytesTransferred: 777,
    });
    const running = sim.estate.management.addActivity({ category: 'CLOUD_DR', classType: 'JOB_GROUP', state: 'RUNNING' });
    let result = await run(activitiesCollector, sim, h, { state });
    expect(result.samples.find((s) => s.name === 'dataprotect_activities' && s.labels.class_type === 'JOB_GROUP' && s.labels.category === 'CLOUD_DR' && s.labels.state === 'RUNNING')?.value).toBeGreaterThanOrEqual(1);
    state = result.state;
    sim.clock.advance(2 * MIN);
    sim.estate.management.setActivityState(running.id, 'COMPLETED', 'OK_WITH_ERRORS');
    result = await run(activitiesCollector, sim, h, { state });
    state = result.state;
    result = await run(activitiesCollector, sim, h, { state }); // the overlap reads both again: no double count
    state = result.state;
    const completed = completedBetween(firstRunAt, now());
    expect(completed.map((a) => a.id)).toEqual(expect.arrayContaining([late.id, running.id]));
    expectCountersEqual(result, completed);
  });

  it('leaves the previous state untouched when a run fails (malformed page)', async () => {
    const before = structuredClone(state);
    sim.clock.advance(10 * MIN);
    sim.faults.add({ api: 'management', path: '/api/v2/activities', times: 1, fault: { kind: 'malformed' } });
    await expect(run(activitiesCollector, sim, h, { state })).rejects.toMatchObject({ kind: 'parse' });
    expect(state).toEqual(before);
    const result = await run(activitiesCollector, sim, h, { state });
    expectCountersEqual(result, completedBetween(firstRunAt, now()));
  });

  it('leaves the previous state untouched when a run fails after pages were applied (copy, not deep clone)', async () => {
    const before = structuredClone(state);
    sim.clock.advance(12 * 60 * MIN); // ~1,500 activities: more than one page
    sim.faults.add({ api: 'management', path: '/api/v2/activities', skip: 1, times: 1, fault: { kind: 'malformed' } });
    await expect(run(activitiesCollector, sim, h, { state })).rejects.toMatchObject({ kind: 'parse' });
    expect(state).toEqual(before);
    const result = await run(activitiesCollector, sim, h, { state });
    expectCountersEqual(result, completedBetween(firstRunAt, now()));
    expectGaugesEqual(result);
    state = result.state;
  });

  it('counts TASK level too when configured', async () => {
    const result = await run(activitiesCollector, sim, h, { settings: { activityClassTypes: ['TASK'] } });
    const tasks = sim.estate.management.activities().filter((a) => a.classType === 'TASK' && a.state === 'COMPLETED' && endOf(a) >= now() - WINDOW);
    expect(series(result, 'dataprotect_activities_window', ['class_type', 'category', 'result'])).toEqual(tally(tasks, (a) => `${a.classType}/${a.category}/${a.result.status}`));
    expect(tasks.length).toBeGreaterThan(0);
  });
});
