/**
 * Resources the service derives from the estate rather than stores:
 * compliance results, policy summaries, inventory discovery times. Each is a
 * function of the estate and the clock, cached until either changes.
 */
import { DAY_MS, HOUR_MS } from './catalog';
import { copyStageType } from './copies';
import type { EstateState, InventorySourceRecord, PolicyRecord } from './records';
import type { ActivityResultStatus, ComplianceDetail, InventorySource, ProtectionPolicy, StageType } from './shapes';

/** memoises one value per estate, recomputed when the estate's version or the clock moves */
export function memoByState<V>(compute: (state: EstateState, nowMs: number) => V): (state: EstateState) => V {
  const cache = new WeakMap<EstateState, { version: number; nowMs: number; value: V }>();
  return (state) => {
    const nowMs = state.clock.now().getTime();
    const hit = cache.get(state);
    if (hit && hit.version === state.version && hit.nowMs === nowMs) return hit.value;
    const value = compute(state, nowMs);
    cache.set(state, { version: state.version, nowMs, value });
    return value;
  };
}

/**
 * One result per protected asset and stage of its policy: SUCCEEDED while the
 * stage's newest copy is within two schedule periods (plus the window),
 * FAILED past that or without any copy, SKIPPED while the asset is too new to
 * be judged or the policy is disabled. A CLOUD_TIER stage succeeds once
 * anything was tiered and fails when copies old enough are still local.
 */
export const complianceDetails = memoByState((state, nowMs): ComplianceDetail[] => {
  const out: ComplianceDetail[] = [];
  for (const asset of state.assets) {
    const policy = asset.policy;
    if (!policy || asset.api.deleted || asset.api.protectionStatus !== 'PROTECTED') continue;
    const newest: Partial<Record<StageType, number>> = {};
    let oldestLocalMs = Infinity;
    for (const c of asset.copies) {
      const type = copyStageType(c, nowMs);
      newest[type] = Math.max(newest[type] ?? 0, c.createMs);
      if (type === 'PROTECTION') oldestLocalMs = Math.min(oldestLocalMs, c.createMs);
    }
    const rpoMs = 2 * policy.periodMs + policy.windowMs;
    for (const stage of policy.api.stages) {
      let status: ComplianceDetail['status'] = 'SUCCEEDED';
      let failed: string[] = [];
      if (!policy.api.enabled) {
        status = 'SKIPPED';
      } else if (stage.type === 'CLOUD_TIER') {
        if (newest.CLOUD_TIER !== undefined) status = 'SUCCEEDED';
        else if (nowMs - oldestLocalMs > policy.tierAfterMs + DAY_MS) [status, failed] = ['FAILED', ['TIERING']];
        else status = 'SKIPPED';
      } else {
        const latest = newest[stage.type];
        if (latest === undefined) {
          if (nowMs - asset.createdMs < rpoMs) status = 'SKIPPED';
          else [status, failed] = ['FAILED', ['RPO', 'COPY_EXISTS']];
        } else if (nowMs - latest > rpoMs) {
          [status, failed] = ['FAILED', ['RPO']];
        }
      }
      out.push({
        assetId: asset.api.id,
        assetName: asset.api.name,
        protectionPolicyId: policy.api.id,
        policyName: policy.api.name,
        stageId: stage.id,
        ...runTimes(lastVerificationRun(nowMs)),
        status,
        ...(out.length % 3 === 2 ? {} : { verifiedObjectives: { status } }),
        objectiveFailedNameList: failed,
      });
    }
  }
  return out;
});

/** Compliance is verified every this often; each run adds a record per asset and stage. */
const VERIFICATION_PERIOD_MS = HOUR_MS;
/** Earlier runs the listing keeps per asset and stage, besides the latest. */
const EARLIER_RUNS = 2;
const EARLIER_STATUSES: readonly ComplianceDetail['status'][] = ['FAILED', 'SUCCEEDED', 'SKIPPED'];

function lastVerificationRun(nowMs: number): number {
  return Math.floor(nowMs / VERIFICATION_PERIOD_MS) * VERIFICATION_PERIOD_MS;
}

/** A run's times: created at its start, completed a few minutes later. */
function runTimes(startMs: number): Pick<ComplianceDetail, 'startTime' | 'completionTime' | 'createdAt'> {
  const start = new Date(startMs).toISOString();
  return { startTime: start, createdAt: start, completionTime: new Date(startMs + RUN_LENGTH_MS).toISOString() };
}

const RUN_LENGTH_MS = 4 * 60_000;

/**
 * What compliance-details lists: every verification run, not the current
 * state. Each asset and stage has its latest result (complianceDetails, the
 * truth) and EARLIER_RUNS older ones with other results, listed before the
 * latest for some and after it for others, so that neither the first nor the
 * last record listed is the latest one: only completionTime tells.
 */
export const complianceHistory = memoByState((state): ComplianceDetail[] => {
  const out: ComplianceDetail[] = [];
  complianceDetails(state).forEach((latest, index) => {
    const started = Date.parse(latest.startTime);
    const earlier = Array.from({ length: EARLIER_RUNS }, (_, k): ComplianceDetail => {
      const status = EARLIER_STATUSES[(index + k) % EARLIER_STATUSES.length] as ComplianceDetail['status'];
      return {
        ...latest,
        ...runTimes(started - (k + 1) * VERIFICATION_PERIOD_MS),
        status,
        ...(latest.verifiedObjectives ? { verifiedObjectives: { status } } : {}),
        objectiveFailedNameList: status === 'FAILED' ? ['RPO'] : [],
      };
    });
    if (index % 2 === 0) out.push(...earlier, latest);
    else out.push(latest, ...earlier);
  });
  return out;
});

const assetCounts = memoByState((state): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const asset of state.assets) {
    const id = asset.api.protectionPolicyId;
    if (id && !asset.api.deleted) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
});

const slaCounts = memoByState((state): Map<string, { failed: number; succeeded: number }> => {
  const counts = new Map<string, { failed: number; succeeded: number }>();
  for (const item of complianceDetails(state)) {
    const entry = counts.get(item.protectionPolicyId) ?? { failed: 0, succeeded: 0 };
    if (item.status === 'FAILED') entry.failed++;
    if (item.status === 'SUCCEEDED') entry.succeeded++;
    counts.set(item.protectionPolicyId, entry);
  }
  return counts;
});

export function policyView(state: EstateState, policy: PolicyRecord): ProtectionPolicy {
  const nowMs = state.clock.now().getTime();
  let lastStatus: ActivityResultStatus | null = null;
  let lastEnd = -Infinity;
  let jobFailures = 0;
  // groups are in createMs order and run at most a few hours: look back a day and a bit
  for (let i = policy.groups.length - 1; i >= 0; i--) {
    const g = policy.groups[i];
    if (!g || g.createMs < nowMs - 2 * DAY_MS) break;
    if (g.endMs > nowMs) continue;
    if (g.endMs > lastEnd) [lastEnd, lastStatus] = [g.endMs, g.status];
    if (g.endMs > nowMs - DAY_MS) jobFailures += g.failedJobs;
  }
  const sla = slaCounts(state).get(policy.api.id) ?? { failed: 0, succeeded: 0 };
  return {
    ...structuredClone(policy.api),
    summary: {
      numberOfAssets: assetCounts(state).get(policy.api.id) ?? 0,
      lastExecutionStatus: lastStatus,
      numberOfJobFailures: jobFailures,
      numberOfSlaFailures: sla.failed,
      numberOfSlaSuccess: sla.succeeded,
    },
  };
}

/** discovery runs every periodMs; lastDiscovered is the last run the clock has passed (or a time tests fixed) */
export function inventorySourceView(source: InventorySourceRecord, nowMs: number): InventorySource {
  const last = source.fixedDiscoveredMs ?? Math.floor((nowMs - source.phaseMs) / source.periodMs) * source.periodMs + source.phaseMs;
  return { ...structuredClone(source.api), lastDiscovered: new Date(last).toISOString() };
}
