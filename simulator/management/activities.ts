/**
 * Activities: generated one hour at a time as "units" (a JOB_GROUP with one
 * JOB per asset and a TASK under each job, or a lone JOB with an optional
 * TASK), each with a planned timeline. Their state is a function of the clock
 * (QUEUED before startMs, RUNNING, PENDING_CANCELLATION after cancelMs,
 * COMPLETED from endMs), so they move through their states as the clock moves
 * and updateTime is the last transition already passed.
 */
import type { SeededRandom } from '../core/random';
import { ACTIVITY_CATEGORIES, ACTIVITY_ERRORS, RESULT_WEIGHTS, type CategoryInfo } from './catalog';
import type { ActivityRecord, ActivityRef, AssetRecord, EstateState, PolicyRecord } from './records';
import type { Activity, ActivityClassType, ActivityResultStatus, ActivityState } from './shapes';
import { uuidFrom } from './hash';

export function activityState(a: ActivityRecord, nowMs: number): ActivityState {
  if (nowMs < a.startMs) return 'QUEUED';
  if (nowMs >= a.endMs) return 'COMPLETED';
  if (nowMs >= a.cancelMs) return 'PENDING_CANCELLATION';
  return 'RUNNING';
}

/** the last state change already passed */
export function activityUpdateMs(a: ActivityRecord, nowMs: number): number {
  let t = a.createMs;
  if (a.startMs <= nowMs) t = Math.max(t, a.startMs);
  if (a.cancelMs <= nowMs) t = Math.max(t, a.cancelMs);
  if (a.endMs <= nowMs) t = Math.max(t, a.endMs);
  return t;
}

/** from creation to the last state change planned so far (start, cancellation, end; never-reached ones left out) */
export function activitySpanMs(a: ActivityRecord): number {
  let last = a.createMs;
  for (const t of [a.startMs, a.cancelMs, a.endMs]) if (Number.isFinite(t)) last = Math.max(last, t);
  return last - a.createMs;
}

export function activityProgress(a: ActivityRecord, nowMs: number): number {
  const state = activityState(a, nowMs);
  if (state === 'QUEUED') return 0;
  if (state === 'COMPLETED') return 100;
  if (!Number.isFinite(a.endMs)) return 50;
  return Math.min(99, Math.floor(((nowMs - a.startMs) / Math.max(1, a.endMs - a.startMs)) * 100));
}

export function activityStatus(a: ActivityRecord, nowMs: number): ActivityResultStatus {
  return nowMs >= a.endMs ? a.status : 'UNKNOWN';
}

export function activityStartTime(a: ActivityRecord, nowMs: number): number | null {
  return nowMs >= a.startMs ? a.startMs : null;
}

export function activityEndTime(a: ActivityRecord, nowMs: number): number | null {
  return nowMs >= a.endMs ? a.endMs : null;
}

export function activityDuration(a: ActivityRecord, nowMs: number): number {
  if (nowMs < a.startMs) return 0;
  return Math.min(nowMs, a.endMs) - a.startMs;
}

export function activityBytes(a: ActivityRecord, nowMs: number): number {
  if (nowMs >= a.endMs) return a.bytes;
  return Math.floor((a.bytes * activityProgress(a, nowMs)) / 100);
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function renderActivity(a: ActivityRecord, nowMs: number): Activity {
  const completed = nowMs >= a.endMs;
  const start = activityStartTime(a, nowMs);
  const bytes = activityBytes(a, nowMs);
  const pre = completed ? a.preCompBytes : Math.floor((a.preCompBytes * activityProgress(a, nowMs)) / 100);
  const error = completed && a.errorIndex >= 0 ? ACTIVITY_ERRORS[a.errorIndex] : undefined;
  return {
    id: a.id,
    name: a.name,
    parentId: a.parentId,
    category: a.category,
    subcategory: a.subcategory,
    classType: a.classType,
    state: activityState(a, nowMs),
    progress: activityProgress(a, nowMs),
    createTime: iso(a.createMs),
    updateTime: iso(activityUpdateMs(a, nowMs)),
    startTime: start === null ? null : iso(start),
    endTime: completed ? iso(a.endMs) : null,
    duration: activityDuration(a, nowMs),
    result: { status: activityStatus(a, nowMs), bytesTransferred: bytes, error: error ? { ...error } : null },
    asset: a.asset ? { ...a.asset } : null,
    protectionPolicy: a.policy ? { ...a.policy } : null,
    stats: {
      preCompBytes: pre,
      postCompBytes: bytes,
      bytesTransferred: bytes,
      dedupeRatio: bytes > 0 ? Math.round((pre / bytes) * 10) / 10 : 0,
      reductionPercentage: pre > 0 ? Math.round((1 - bytes / pre) * 1000) / 10 : 0,
    },
  };
}

const refs = new WeakMap<AssetRecord | PolicyRecord, ActivityRef>();

/** The {id, name, type} reference an activity carries to its asset or policy, one object per record. */
export function recordRef(record: AssetRecord | PolicyRecord): ActivityRef {
  let ref = refs.get(record);
  if (!ref) {
    ref = { id: record.api.id, name: record.api.name, type: record.api.type };
    refs.set(record, ref);
  }
  return ref;
}

/** which assets activities can be about; rebuilt only when assets change */
interface Candidates {
  assetsVersion: number;
  live: AssetRecord[];
  byPolicy: Map<PolicyRecord, AssetRecord[]>;
  /** active policies with assets, per category that runs job groups */
  policiesFor: Map<string, PolicyRecord[]>;
}

const candidatesCache = new WeakMap<EstateState, Candidates>();

function candidates(state: EstateState): Candidates {
  const cached = candidatesCache.get(state);
  if (cached && cached.assetsVersion === state.assetsVersion) return cached;
  const live = state.assets.filter((a) => !a.api.deleted);
  const byPolicy = new Map<PolicyRecord, AssetRecord[]>();
  for (const asset of live) {
    if (!asset.policy || asset.policy.periodMs === 0 || asset.api.protectionStatus !== 'PROTECTED') continue;
    const list = byPolicy.get(asset.policy) ?? [];
    list.push(asset);
    byPolicy.set(asset.policy, list);
  }
  const withAssets = state.policies.filter((p) => byPolicy.has(p) && p.api.enabled);
  const policiesFor = new Map<string, PolicyRecord[]>([
    ['PROTECT', withAssets],
    ['REPLICATE', withAssets.filter((p) => p.stageIds.REPLICATION)],
    ['CLOUD_TIER', withAssets.filter((p) => p.stageIds.CLOUD_TIER)],
  ]);
  const fresh = { assetsVersion: state.assetsVersion, live, byPolicy, policiesFor };
  candidatesCache.set(state, fresh);
  return fresh;
}

function weighted<T>(rng: SeededRandom, items: readonly T[], weightOf: (item: T) => number): T {
  let total = 0;
  for (const item of items) total += weightOf(item);
  let x = rng.next() * total;
  for (const item of items) {
    x -= weightOf(item);
    if (x < 0) return item;
  }
  return items[items.length - 1] as T;
}

/** log-uniform: many short jobs, a few long ones */
function durationMs(rng: SeededRandom, [min, max]: [number, number]): number {
  return Math.round(min * Math.pow(max / min, rng.next()) * 1000);
}

interface JobPlan {
  category: CategoryInfo;
  subcategory: string;
  createMs: number;
  parentId: string | null;
  asset: AssetRecord | null;
  policy: PolicyRecord | null;
  name: string;
}

function makeJob(rng: SeededRandom, plan: JobPlan, classType: ActivityClassType = 'JOB'): ActivityRecord {
  const startMs = plan.createMs + rng.int(0, 90) * 1000;
  let endMs = startMs + durationMs(rng, plan.category.durationS);
  const status = weighted(rng, RESULT_WEIGHTS, ([, w]) => w)[0];
  let cancelMs = Infinity;
  if (status === 'CANCELED') {
    cancelMs = startMs + Math.floor((endMs - startMs) * rng.next());
    endMs = cancelMs + rng.int(5, 60) * 1000;
  }
  if (status === 'SKIPPED') endMs = startMs + rng.int(1, 5) * 1000;
  let preCompBytes = 0;
  let bytes = 0;
  if (plan.category.moveBytes && plan.asset && status !== 'SKIPPED') {
    preCompBytes = Math.floor(plan.asset.api.size * (0.01 + rng.next() * 0.09));
    const dedupe = 2 + rng.next() * 28;
    bytes = Math.floor(preCompBytes / dedupe);
    if (status === 'FAILED' || status === 'CANCELED') {
      const done = rng.next();
      preCompBytes = Math.floor(preCompBytes * done);
      bytes = Math.floor(bytes * done);
    }
  }
  return {
    id: uuidFrom(rng),
    name: plan.name,
    parentId: plan.parentId,
    category: plan.category.category,
    subcategory: plan.subcategory,
    classType,
    createMs: plan.createMs,
    startMs,
    endMs,
    cancelMs,
    status,
    bytes,
    preCompBytes,
    asset: plan.asset ? recordRef(plan.asset) : null,
    policy: plan.policy ? recordRef(plan.policy) : null,
    errorIndex: status === 'FAILED' || status === 'OK_WITH_ERRORS' ? rng.int(0, ACTIVITY_ERRORS.length - 1) : -1,
    failedJobs: 0,
  };
}

/** a TASK running inside its job's span, sharing its outcome */
function makeTask(rng: SeededRandom, job: ActivityRecord, name: string): ActivityRecord {
  const startMs = Math.min(job.endMs, job.startMs + rng.int(0, 10) * 1000);
  const endMs = Math.max(startMs, job.endMs - rng.int(0, 5) * 1000);
  return {
    ...job,
    id: uuidFrom(rng),
    name,
    parentId: job.id,
    classType: 'TASK',
    startMs,
    endMs,
    cancelMs: job.cancelMs <= endMs ? Math.max(startMs, job.cancelMs) : Infinity,
  };
}

function groupStatus(jobs: ActivityRecord[]): ActivityResultStatus {
  const failed = jobs.filter((j) => j.status === 'FAILED').length;
  if (failed === jobs.length) return 'FAILED';
  if (failed > 0 || jobs.some((j) => j.status === 'OK_WITH_ERRORS')) return 'OK_WITH_ERRORS';
  if (jobs.every((j) => j.status === 'CANCELED')) return 'CANCELED';
  if (jobs.every((j) => j.status === 'SKIPPED')) return 'SKIPPED';
  return 'OK';
}

function makeGroupUnit(rng: SeededRandom, category: CategoryInfo, policy: PolicyRecord, assets: AssetRecord[], createMs: number): ActivityRecord[] {
  const subcategory = rng.pick(category.subcategories);
  const groupId = uuidFrom(rng);
  const jobCount = rng.int(1, Math.min(6, assets.length));
  const unit: ActivityRecord[] = [];
  const jobs: ActivityRecord[] = [];
  for (let j = 0; j < jobCount; j++) {
    const asset = rng.pick(assets);
    const job = makeJob(rng, { category, subcategory, createMs, parentId: groupId, asset, policy, name: `${category.label} ${asset.api.name}` });
    jobs.push(job);
    unit.push(job, makeTask(rng, job, `${category.label} ${asset.api.name}: copy data`));
  }
  const status = groupStatus(jobs);
  const failedJob = jobs.find((j) => j.errorIndex >= 0);
  const group: ActivityRecord = {
    id: groupId,
    name: `${policy.api.name} - ${category.label} - ${subcategory}`,
    parentId: null,
    category: category.category,
    subcategory,
    classType: 'JOB_GROUP',
    createMs,
    startMs: Math.min(...jobs.map((j) => j.startMs)),
    endMs: Math.max(...jobs.map((j) => j.endMs)),
    cancelMs: status === 'CANCELED' ? Math.min(...jobs.map((j) => j.cancelMs)) : Infinity,
    status,
    bytes: jobs.reduce((sum, j) => sum + j.bytes, 0),
    preCompBytes: jobs.reduce((sum, j) => sum + j.preCompBytes, 0),
    asset: null,
    policy: recordRef(policy),
    errorIndex: status === 'FAILED' || status === 'OK_WITH_ERRORS' ? (failedJob?.errorIndex ?? 0) : -1,
    failedJobs: jobs.filter((j) => j.status === 'FAILED').length,
  };
  return [group, ...unit];
}

const SYSTEM_CATEGORY = ACTIVITY_CATEGORIES.find((c) => c.category === 'SYSTEM') as CategoryInfo;

function makeUnit(rng: SeededRandom, state: EstateState, createMs: number): ActivityRecord[] {
  const c = candidates(state);
  let category = weighted(rng, ACTIVITY_CATEGORIES, (cat) => cat.weight);
  if (category.grouped) {
    const policies = c.policiesFor.get(category.category) ?? [];
    if (policies.length > 0) {
      const policy = rng.pick(policies);
      return makeGroupUnit(rng, category, policy, c.byPolicy.get(policy) ?? [], createMs);
    }
    category = SYSTEM_CATEGORY;
  }
  const needsAsset = category.moveBytes || category.category === 'INDEX' || category.category === 'DELETE';
  const asset = needsAsset && c.live.length > 0 ? rng.pick(c.live) : null;
  const subcategory = rng.pick(category.subcategories);
  const name = asset ? `${category.label} ${asset.api.name}` : `${category.label} - ${subcategory}`;
  const job = makeJob(rng, { category, subcategory, createMs, parentId: null, asset, policy: asset?.policy ?? null, name });
  return rng.chance(0.5) ? [job, makeTask(rng, job, `${name}: step`)] : [job];
}

/**
 * The activities of one hour: about activitiesPerDay / 24, counting every
 * group, job and task. All activities of a unit share its createMs (group
 * first), so the hour's list comes out in ascending createMs.
 */
export function generateActivityHour(state: EstateState, rng: SeededRandom, hourStartMs: number, hourMs: number): ActivityRecord[] {
  const budget = Math.floor(state.size.activitiesPerDay / 24 + rng.next());
  const units: ActivityRecord[][] = [];
  let made = 0;
  while (made < budget) {
    const unit = makeUnit(rng, state, 0);
    // a unit of many activities would overshoot the budget: keep it only if that misses the budget by less than leaving it out
    if (made + unit.length - budget > budget - made) break;
    units.push(unit);
    made += unit.length;
  }
  const times = units.map(() => hourStartMs + Math.floor(rng.next() * hourMs)).sort((a, b) => a - b);
  const out: ActivityRecord[] = [];
  units.forEach((unit, i) => {
    const createMs = times[i] as number;
    for (const a of unit) {
      // units were built at time 0; shift their whole timeline to the drawn creation time
      a.createMs += createMs;
      a.startMs += createMs;
      a.endMs += createMs;
      a.cancelMs += createMs;
      out.push(a);
    }
  });
  return out;
}
