import { and, ge, isIn } from '../../clients/management/filter';
import type { Activity } from '../../clients/management/schemas';
import { ACTIVITY_DURATION_BUCKETS } from '../../metrics/catalog';
import { defineCollector, type HistogramSample, type Sample } from '../types';
import { EventLedger, type LedgerState } from './ledger';
import { Tally } from '../shared/tally';
import { chunks } from '../shared/chunks';

const ACTIVE_STATES = new Set(['QUEUED', 'RUNNING', 'PENDING_CANCELLATION']);
const FOLLOW_BATCH = 100;

interface Histogram {
  /** per bound, observations <= bound (cumulative) */
  buckets: number[];
  count: number;
  sum: number;
}

export interface ActivitiesState {
  ledger: LedgerState;
  /** activities now queued or running, followed until they complete */
  active: Map<string, Readonly<{ classType: string; category: string; state: string }>>;
  /** running totals, by "classType\0category\0result" (bytes and durations by "classType\0category") */
  completed: Map<string, number>;
  transferred: Map<string, number>;
  durations: Map<string, Histogram>;
  /** completions inside the window: end time, category, result */
  window: Array<Readonly<{ end: number; classType: string; category: string; result: string }>>;
  /** label combinations seen, kept at 0 when empty */
  windowKeys: Set<string>;
  activeKeys: Set<string>;
}

const key = (...parts: string[]): string => parts.join('\u0000');
const unkey = <T extends string[]>(k: string): T => k.split('\u0000') as T;

/**
 * Jobs of the management service (only the levels in
 * `collection.activityClassTypes`, JOB_GROUP and JOB by default).
 *
 * Read incrementally by updateTime (serial paging, see ledger.ts for the
 * watermark, overlap and id de-duplication); the first run also asks for
 * every activity still queued or running, however old. Activities seen
 * QUEUED, RUNNING or PENDING_CANCELLATION are followed: those that the
 * incremental read does not bring back are asked for by id (100 ids a
 * request) until they complete or disappear, so a completion is not missed
 * even if its updateTime lags.
 *
 * - dataprotect_activities_completed_total, _activity_duration_seconds and
 *   _activity_transferred_bytes_total count each activity once, when it is
 *   first seen COMPLETED, if it completed after the collector's first run
 *   started (`ctx.collectingSince`, whether or not that run succeeded: earlier
 *   ones are history, never replayed);
 * - dataprotect_activities_window: completed within `collection.window` by
 *   endTime, rebuilt from the service by the first run that succeeds;
 * - dataprotect_activities: those now QUEUED / RUNNING / PENDING_CANCELLATION.
 * Label combinations once seen stay, with 0, so dashboards show 0, not "no data".
 *
 * Every series carries `class_type`: a policy run is one JOB_GROUP plus one
 * JOB per asset in the same category, so counting both under one label set
 * would count each run about twice. Bytes are read from
 * stats.bytesTransferred, else from the deprecated result.bytesTransferred.
 */
export const activitiesCollector = defineCollector<'management', ActivitiesState>({
  name: 'activities',
  kind: 'management',
  description: 'Completed, windowed and running activities, their durations and transferred bytes',
  defaultSchedule: '* * * * *',
  metrics: [
    'dataprotect_activities_completed_total',
    'dataprotect_activities_window',
    'dataprotect_activities',
    'dataprotect_activity_duration_seconds',
    'dataprotect_activity_transferred_bytes_total',
  ],
  async collect(ctx, signal) {
    const now = ctx.now().getTime();
    const windowStart = now - ctx.settings.window;
    // Work on a copy: a failed run must leave the previous state as it was.
    const state: ActivitiesState = ctx.state ? shallowCopy(ctx.state) : emptyState();
    const ledger = new EventLedger(ctx.state?.ledger, { windowStart, collectingSince: ctx.collectingSince.getTime(), now });
    const classTypes = ctx.settings.activityClassTypes;

    const seen = new Set<string>();
    const admitted: Activity[] = [];
    const apply = (activity: Activity): void => {
      seen.add(activity.id);
      const classType = activity.classType ?? '';
      if (ACTIVE_STATES.has(activity.state)) {
        state.active.set(activity.id, { classType, category: activity.category, state: activity.state });
        state.activeKeys.add(key(classType, activity.category, activity.state));
        return;
      }
      // An activity seen running since the exporter started has never been counted,
      // however late its completion shows: it is admitted whatever its end time.
      const wasActive = state.active.delete(activity.id);
      if (activity.state !== 'COMPLETED') return; // an unknown state: neither running nor completed
      // A completion the service gives no result for is still a completion: it is counted
      // under UNKNOWN (a status the API itself uses) rather than failing every run on one record.
      const result = activity.result?.status || 'UNKNOWN';
      const end = completionTime(activity);
      if (ledger.has(activity.id)) return;
      const counted = wasActive ? ledger.admitFollowed(activity.id, end) : ledger.admit(activity.id, end);
      const resultKey = key(classType, activity.category, result);
      const categoryKey = key(classType, activity.category);
      if (ledger.first || counted) {
        admitted.push(activity);
        if (end >= windowStart) state.window.push({ end, classType, category: activity.category, result });
        state.windowKeys.add(resultKey);
        if (!state.completed.has(resultKey)) state.completed.set(resultKey, 0);
        if (!state.transferred.has(categoryKey)) state.transferred.set(categoryKey, 0);
        if (!state.durations.has(categoryKey)) state.durations.set(categoryKey, emptyHistogram());
      }
      if (!counted) return;
      state.completed.set(resultKey, (state.completed.get(resultKey) ?? 0) + 1);
      const bytes = activity.stats?.bytesTransferred ?? activity.result?.bytesTransferred ?? 0;
      state.transferred.set(categoryKey, (state.transferred.get(categoryKey) ?? 0) + bytes);
      const seconds = durationSeconds(activity);
      if (seconds !== undefined) observe(state.durations.get(categoryKey) as Histogram, seconds);
    };

    let items = 0;
    const filter = and(isIn('classType', classTypes), ge('updateTime', new Date(ledger.since)));
    for await (const page of ctx.client.activities({ filter }, signal)) {
      items += page.length;
      for (const activity of page) {
        ledger.observe(activity.updateTime);
        apply(activity);
      }
    }

    // The first read reaches back only `window` by updateTime, and an
    // activity's updateTime is its last state change: one queued or running
    // since before that (a stuck job, a long initial backup) is running now
    // all the same. Later runs see every new one appear and follow it.
    if (ledger.first) {
      const stillActive = and(isIn('classType', classTypes), isIn('state', [...ACTIVE_STATES]));
      for await (const page of ctx.client.activities({ filter: stillActive }, signal)) {
        items += page.length;
        for (const activity of page) if (!seen.has(activity.id)) apply(activity);
      }
    }

    // Follow the running ones that the incremental read did not bring back.
    const unseen = [...state.active.keys()].filter((id) => !seen.has(id));
    for (const batch of chunks(unseen, FOLLOW_BATCH)) {
      for await (const page of ctx.client.activities({ filter: isIn('id', batch) }, signal)) {
        items += page.length;
        for (const activity of page) apply(activity);
      }
      for (const id of batch) if (!seen.has(id)) state.active.delete(id); // gone from the service
    }

    if (ledger.ahead > 0) {
      ctx.logger.warn({ count: ledger.ahead }, 'activities updated later than the exporter\'s clock plus the overlap: the service\'s clock or data is off; the watermark does not follow them');
    }
    state.ledger = ledger.finish();
    state.window = state.window.filter((entry) => entry.end >= windowStart);
    return { ...(await render(ctx.target.name, state)), state, items, events: { activities: admitted, history: ledger.first } };
  },
});

function emptyState(): ActivitiesState {
  return {
    ledger: { watermark: 0, countFrom: 0, seen: new Map() },
    active: new Map(),
    completed: new Map(),
    transferred: new Map(),
    durations: new Map(),
    window: [],
    windowKeys: new Set(),
    activeKeys: new Set(),
  };
}

/**
 * A copy of the state that this run may change without touching the previous
 * one: the maps, sets and the window are copied, the entries they hold are
 * shared because they are replaced, never changed; only the histograms, which
 * observe() changes in place, are copied whole (one per category). A
 * structuredClone of it all (a window of 100,000+ completions on a large
 * estate) would be most of this collector's time and garbage. The ledger copies
 * what it keeps itself.
 */
function shallowCopy(previous: ActivitiesState): ActivitiesState {
  const durations = new Map<string, Histogram>();
  for (const [k, histogram] of previous.durations) durations.set(k, { ...histogram, buckets: [...histogram.buckets] });
  return {
    ledger: previous.ledger,
    active: new Map(previous.active),
    completed: new Map(previous.completed),
    transferred: new Map(previous.transferred),
    durations,
    window: previous.window.slice(),
    windowKeys: new Set(previous.windowKeys),
    activeKeys: new Set(previous.activeKeys),
  };
}

function emptyHistogram(): Histogram {
  return { buckets: ACTIVITY_DURATION_BUCKETS.map(() => 0), count: 0, sum: 0 };
}

/**
 * When the activity completed: endTime, else startTime plus duration. Only
 * when neither is there, updateTime, which moves if the record is touched
 * again later: that is the one case an activity could be counted twice.
 */
function completionTime(activity: Activity): number {
  if (activity.endTime != null) return activity.endTime;
  if (activity.startTime != null && activity.duration != null) return activity.startTime + activity.duration;
  return activity.updateTime;
}

/** Duration in seconds: the API's milliseconds, else end minus start; undefined when unknown. */
function durationSeconds(activity: Activity): number | undefined {
  if (activity.duration != null) return activity.duration / 1000;
  if (activity.startTime != null && activity.endTime != null && activity.endTime >= activity.startTime) {
    return (activity.endTime - activity.startTime) / 1000;
  }
  return undefined;
}

function observe(histogram: Histogram, seconds: number): void {
  ACTIVITY_DURATION_BUCKETS.forEach((bound, index) => {
    if (seconds <= bound) histogram.buckets[index] = (histogram.buckets[index] ?? 0) + 1;
  });
  histogram.count += 1;
  histogram.sum += seconds;
}

async function render(target: string, state: ActivitiesState): Promise<{ samples: Sample[]; histograms: HistogramSample[] }> {
  const samples: Sample[] = [];
  for (const [k, value] of state.completed) {
    const [classType, category, result] = unkey<[string, string, string]>(k);
    samples.push({ name: 'dataprotect_activities_completed_total', labels: { target, class_type: classType, category, result }, value });
  }
  const inWindow = new Tally<[string, string, string]>();
  for (const k of state.windowKeys) inWindow.touch(unkey(k));
  // a day of completions: 500,000 on a 50,000-asset estate
  state.window.forEach((entry) => inWindow.add([entry.classType, entry.category, entry.result]));
  for (const { key: [classType, category, result], value } of inWindow.entries()) {
    samples.push({ name: 'dataprotect_activities_window', labels: { target, class_type: classType, category, result }, value });
  }
  const running = new Tally<[string, string, string]>();
  for (const k of state.activeKeys) running.touch(unkey(k));
  for (const activity of state.active.values()) running.add([activity.classType, activity.category, activity.state]);
  for (const { key: [classType, category, activityState], value } of running.entries()) {
    samples.push({ name: 'dataprotect_activities', labels: { target, class_type: classType, category, state: activityState }, value });
  }
  for (const [k, bytes] of state.transferred) {
    const [classType, category] = unkey<[string, string]>(k);
    samples.push({ name: 'dataprotect_activity_transferred_bytes_total', labels: { target, class_type: classType, category }, value: bytes });
  }
  const histograms: HistogramSample[] = [];
  for (const [k, histogram] of state.durations) {
    const [classType, category] = unkey<[string, string]>(k);
    histograms.push({
      name: 'dataprotect_activity_duration_seconds',
      labels: { target, class_type: classType, category },
      bounds: ACTIVITY_DURATION_BUCKETS,
      bucketCounts: histogram.buckets,
      count: histogram.count,
      sum: histogram.sum,
    });
  }
  return { samples, histograms };
}
