import { and, isIn, type Filter } from '../../clients/management/filter';
import type { ManagementClient } from '../../clients/management/client';
import type { Activity } from '../../clients/management/schemas';
import { ACTIVITY_DURATION_BUCKETS } from '../../metrics/catalog';
import { defineCollector, type HistogramSample } from '../types';
import { EventCounts, type CountsState } from './ledger';
import { Tally } from '../shared/tally';
import { chunks } from '../shared/chunks';
import { compositeKey } from '../../util/composite-key';

const ACTIVE_STATES = new Set(['QUEUED', 'RUNNING', 'PENDING_CANCELLATION']);
const FOLLOW_BATCH = 100;

type CategoryKey = [classType: string, category: string];
type ResultKey = [classType: string, category: string, result: string];
type StateKey = [classType: string, category: string, state: string];

/** One category's bytes transferred and durations; replaced, never changed, when an activity counts. */
interface CategoryTotals {
  readonly key: CategoryKey;
  readonly bytes: number;
  /** per bound, durations <= bound (cumulative) */
  readonly buckets: readonly number[];
  readonly count: number;
  readonly sum: number;
}

export interface ActivitiesState extends CountsState<ResultKey> {
  /** activities now queued or running, followed until they complete */
  readonly active: ReadonlyMap<string, StateKey>;
  /** label sets once seen running, kept at 0 when none is */
  readonly activeKeys: readonly StateKey[];
  /** by compositeKey of the category key */
  readonly categories: ReadonlyMap<string, CategoryTotals>;
}

/**
 * Jobs of the levels in `collection.activityClassTypes` (JOB_GROUP and JOB by default), read incrementally by updateTime
 * (serial paging, ledger.ts). Active ones the incremental read does not bring back are asked for by id until they complete or
 * disappear, so a completion whose updateTime lags is not missed. A completion counts by its end time (the window too); label
 * sets once seen stay, with 0, so dashboards show 0, not "no data". Every series carries `class_type`: a policy run is one
 * JOB_GROUP plus one JOB per asset, all in one category, so counting both under one label set would count each run about twice.
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
    const previous = ctx.state;
    // Copies: a failed run must leave the previous state as it was (see EventCounts).
    const run: Run = {
      counts: new EventCounts(previous, ctx),
      active: new Map(previous?.active),
      running: new Tally((previous?.activeKeys ?? []).map((key) => ({ key, value: 0 }))),
      categories: new Map(previous?.categories),
      seen: new Set(),
      admitted: ctx.forwards?.activities ? [] : undefined,
      jobs: ctx.forwards?.activities ? [] : undefined,
      keptAfter: previous === undefined ? (ctx.forwards?.historyAfter ?? Infinity) : -Infinity,
    };
    const items = await readActivities(ctx.client, ctx.settings.activityClassTypes, run, signal);
    for (const key of run.active.values()) run.running.add(key);
    const target = ctx.target.name;
    const samples = [
      ...run.counts.totals.samples('dataprotect_activities_completed_total', { target }, RESULT_LABELS),
      // a day of completions: 500,000 on a 50,000-asset estate
      ...run.counts.inWindow().samples('dataprotect_activities_window', { target }, RESULT_LABELS),
      ...run.running.samples('dataprotect_activities', { target }, ['class_type', 'category', 'state']),
    ];
    const histograms: HistogramSample[] = [];
    for (const { key: [classType, category], bytes, buckets, count, sum } of run.categories.values()) {
      const labels = { target, class_type: classType, category };
      samples.push({ name: 'dataprotect_activity_transferred_bytes_total', labels, value: bytes });
      const name = 'dataprotect_activity_duration_seconds';
      histograms.push({ name, labels, bounds: ACTIVITY_DURATION_BUCKETS, bucketCounts: buckets, count, sum });
    }
    const state: ActivitiesState = {
      ...run.counts.finish(ctx.logger, 'activities updated'),
      active: run.active,
      activeKeys: run.running.entries().map(({ key }) => key),
      categories: run.categories,
    };
    return { samples, histograms, state, items, events: { activities: run.admitted, jobs: run.jobs } };
  },
});

const RESULT_LABELS = ['class_type', 'category', 'result'] as const;

interface Run {
  readonly counts: EventCounts<ResultKey>;
  readonly active: Map<string, StateKey>;
  /** label sets once running: the running ones are added once the reads are done */
  readonly running: Tally<StateKey>;
  readonly categories: Map<string, CategoryTotals>;
  readonly seen: Set<string>;
  /** the activities to forward (counted, or a first run's history after keptAfter), when forwarded */
  readonly admitted: Activity[] | undefined;
  /** a first run's jobs of history before otlp.backfill's reach, when forwarded: not sent, but the forwarder parents tasks by them */
  readonly jobs: Activity[] | undefined;
  /** a first run's history ending after this is forwarded (otlp.backfill's reach); older history is not kept, but for jobs */
  readonly keptAfter: number;
}

/** The incremental read, the first run's read of what is still active, and the follow-up; returns the items read. */
async function readActivities(client: ManagementClient, classTypes: readonly string[], run: Run, signal: AbortSignal): Promise<number> {
  let items = 0;
  const read = async (filter: Filter, each: (activity: Activity) => void): Promise<void> => {
    for await (const page of client.activities({ filter }, signal)) {
      items += page.length;
      for (const activity of page) each(activity);
    }
  };
  const { counts } = run;
  await read(and(isIn('classType', classTypes), counts.range('updateTime')), (activity) => {
    counts.observe(activity.updateTime);
    apply(run, activity);
  });
  // The first read reaches back only `window` by updateTime, an activity's last state change: one queued or running since
  // before that (a stuck job, a long initial backup) is running all the same. Later runs see each new one appear.
  if (counts.first) {
    await read(and(isIn('classType', classTypes), isIn('state', [...ACTIVE_STATES])), (activity) => {
      if (!run.seen.has(activity.id)) apply(run, activity);
    });
  }
  const unseen = [...run.active.keys()].filter((id) => !run.seen.has(id));
  for (const batch of chunks(unseen, FOLLOW_BATCH)) {
    await read(isIn('id', batch), (activity) => apply(run, activity));
    for (const id of batch) if (!run.seen.has(id)) run.active.delete(id); // gone from the service
  }
  return items;
}

/** Follows an active activity; counts a completed one once. */
function apply(run: Run, activity: Activity): void {
  run.seen.add(activity.id);
  const classType = activity.classType ?? '';
  if (ACTIVE_STATES.has(activity.state)) {
    const key: StateKey = [classType, activity.category, activity.state];
    run.active.set(activity.id, key);
    run.running.add(key, 0);
    return;
  }
  // An activity seen running since the exporter started has not been counted yet: it is taken whatever its end time.
  const wasActive = run.active.delete(activity.id);
  if (activity.state !== 'COMPLETED') return; // an unknown state: neither running nor completed
  // A completion without a result counts under UNKNOWN (a status the API uses) rather than failing every run on one record.
  const result = activity.result?.status || 'UNKNOWN';
  const taken = run.counts.take(activity.id, completionTime(activity), [classType, activity.category, result], wasActive);
  if (!taken) return;
  // What counts is forwarded (a first run counts what completed after a failed first attempt, whatever otlp.backfill says).
  if (taken === 'counted' || (activity.endTime ?? activity.updateTime) > run.keptAfter) run.admitted?.push(activity);
  else if (classType === 'JOB') run.jobs?.push(activity);
  const key: CategoryKey = [classType, activity.category];
  const id = compositeKey(key);
  const known = run.categories.get(id) ?? { key, bytes: 0, buckets: ACTIVITY_DURATION_BUCKETS.map(() => 0), count: 0, sum: 0 };
  run.categories.set(id, taken === 'counted' ? count(known, activity) : known);
}

/** endTime, else startTime plus duration, else updateTime: that moves if the record is touched again, so it could count twice. */
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

/** The category's totals with the activity counted: its bytes, and its duration when known. */
function count(totals: CategoryTotals, activity: Activity): CategoryTotals {
  const bytes = totals.bytes + (activity.stats?.bytesTransferred ?? activity.result?.bytesTransferred ?? 0);
  const seconds = durationSeconds(activity);
  if (seconds === undefined) return { ...totals, bytes };
  const buckets = totals.buckets.map((n, index) => (seconds <= (ACTIVITY_DURATION_BUCKETS[index] as number) ? n + 1 : n));
  return { key: totals.key, bytes, buckets, count: totals.count + 1, sum: totals.sum + seconds };
}
