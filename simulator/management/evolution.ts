/**
 * What happens while the simulated clock moves from `fromMs` to `toMs`:
 * activities and audit entries of the passed hours appear, every protected
 * asset gets the copies its policy schedule made, the daily expiry job
 * deletes copies past retention, and old activities are purged. Everything is
 * drawn from streams named after the hour or the backup, so the outcome does
 * not depend on how the clock was moved there.
 */
import { activitySpanMs } from './activities';
import { DAY_MS, HOUR_MS } from './catalog';
import { attachCopy, lastExpiryRun, newestCopy, scheduledCopies, setLastCopy } from './copies';
import { lowerBound } from './hash';
import type { ActivityRecord, AssetRecord, EstateState } from './records';

/** completed activities older than this are purged (the real service keeps a bounded history too) */
export const ACTIVITY_RETENTION_MS = 7 * DAY_MS;

export interface HistoryOptions {
  /** building the initial history: no copies, no expiry; activities created before this are left out */
  notBeforeMs: number;
}

export function evolve(state: EstateState, fromMs: number, toMs: number, history?: HistoryOptions): void {
  releaseActivities(state, toMs, history?.notBeforeMs);
  if (history) return;
  for (const ms of state.auditFeed.release(toMs)) state.audit.appendGenerated(ms);
  makeScheduledCopies(state, toMs);
  const run = lastExpiryRun(toMs);
  if (run > fromMs) expireCopies(state, run);
  purgeActivities(state, toMs);
  state.version++;
}

function releaseActivities(state: EstateState, toMs: number, notBeforeMs?: number): void {
  for (const activity of state.activityFeed.release(toMs)) {
    if (notBeforeMs !== undefined && activity.createMs < notBeforeMs) continue;
    addReleasedActivity(state, activity);
  }
}

/** appends an activity created now or later than every other (keeps the list in createMs order) */
export function addReleasedActivity(state: EstateState, activity: ActivityRecord): void {
  const list = state.activities;
  if (list.length === 0 || (list[list.length - 1] as ActivityRecord).createMs <= activity.createMs) {
    list.push(activity);
  } else {
    list.splice(lowerBound(list.length, (i) => (list[i] as ActivityRecord).createMs, activity.createMs, true), 0, activity);
  }
  state.activityById.set(activity.id, activity);
  state.maxActivitySpanMs = Math.max(state.maxActivitySpanMs, activitySpanMs(activity));
  if (activity.classType === 'JOB_GROUP' && activity.category === 'PROTECT' && activity.policy) {
    const policy = state.policies.find((p) => p.api.id === activity.policy?.id);
    policy?.groups.push(activity);
  }
}

function makeScheduledCopies(state: EstateState, toMs: number): void {
  const storageArrayId = state.storageSystems.find((s) => s.type === 'STORAGE_ARRAY')?.id ?? null;
  for (const asset of state.assets) {
    if (asset.nextBackupMs > toMs) continue;
    const policy = asset.policy;
    if (!policy || policy.periodMs <= 0 || asset.api.deleted || asset.api.protectionStatus !== 'PROTECTED') {
      asset.nextBackupMs = Infinity;
      continue;
    }
    while (asset.nextBackupMs <= toMs) {
      const at = asset.nextBackupMs;
      if (policy.api.enabled) {
        const rng = state.random.fork(`backup/${asset.ordinal}/${at}`);
        for (const copy of scheduledCopies(rng, asset, policy, at, storageArrayId)) attachCopy(state, copy);
      }
      asset.nextBackupMs = at + policy.periodMs;
    }
  }
}

/** the daily expiry job that ran at `runMs`: deletes every copy whose retention passed by then */
export function expireCopies(state: EstateState, runMs: number): void {
  for (const asset of state.assets) {
    if (asset.minRetentionMs > runMs) continue;
    const kept = asset.copies.filter((c) => c.retentionMs > runMs);
    for (const c of asset.copies) if (c.retentionMs <= runMs) state.copyById.delete(c.id);
    asset.copies = kept;
    asset.minRetentionMs = kept.reduce((min, c) => Math.min(min, c.retentionMs), Infinity);
    forgetExpiredLastCopy(asset, runMs);
  }
}

/** an asset left without copies no longer reports a last copy (a pinned one keeps its stale value) */
function forgetExpiredLastCopy(asset: AssetRecord, runMs: number): void {
  if (asset.pinned || asset.lastCopyMs === null) return;
  const newest = newestCopy(asset);
  if (!newest) setLastCopy(asset, null, runMs);
  else if (newest.createMs < asset.lastCopyMs) setLastCopy(asset, newest.createMs, runMs);
}

function purgeActivities(state: EstateState, nowMs: number): void {
  const cutoff = nowMs - ACTIVITY_RETENTION_MS;
  const list = state.activities;
  // purge in batches of an hour: each purge moves the whole array
  if (list.length === 0 || (list[0] as ActivityRecord).createMs >= cutoff - HOUR_MS) return;
  const end = lowerBound(list.length, (i) => (list[i] as ActivityRecord).createMs, cutoff);
  const stillOpen: ActivityRecord[] = [];
  for (let i = 0; i < end; i++) {
    const a = list[i] as ActivityRecord;
    if (a.endMs > nowMs) stillOpen.push(a);
    else state.activityById.delete(a.id);
  }
  list.splice(0, end, ...stillOpen);
  for (const policy of state.policies) {
    const groups = policy.groups;
    const cut = lowerBound(groups.length, (i) => (groups[i] as ActivityRecord).createMs, cutoff);
    if (cut > 0) groups.splice(0, cut);
  }
}
