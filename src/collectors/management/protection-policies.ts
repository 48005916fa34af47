import type { ProtectionPolicy } from '../../clients/management/schemas';
import { defineCollector, type CollectorContext, type Sample } from '../types';
import { policyRpo, readProtectionSchedule, type ProtectionSchedule } from './policy-rpo';
import { ASSET_LIST, POLICY_NAMES, POLICY_SCHEDULES, readPolicies } from './published';
import { Tally } from '../shared/tally';

export interface ProtectionPoliciesState {
  /** the unreadable-schedule reason last logged, by policy id */
  readonly warned: ReadonlyMap<string, string>;
}

/**
 * One info series per policy, the number of assets in
 * each, and each policy's RPO with where it comes from (policy-rpo.ts).
 *
 * dataprotect_policy_assets counts the non-deleted assets of the asset list
 * that the assets collector published (the same assets as dataprotect_assets
 * and dataprotect_asset_info), by policy name. Before that list exists, the
 * policy's own summary.numberOfAssets is used when the service sends it.
 * Policies sharing a name are summed (the label is the name).
 *
 * It publishes the policy names by id (POLICY_NAMES) for assets whose answer
 * does not embed their policy, and the PROTECTION schedules by id
 * (POLICY_SCHEDULES) for the assets' RPO.
 *
 * A policy whose schedule cannot be read is logged once per reason: the
 * state keeps the reason last logged for each policy, so the warning comes
 * back only when the policy changes (and again after the exporter restarts).
 */
export const protectionPoliciesCollector = defineCollector<'management', ProtectionPoliciesState>({
  name: 'protection-policies',
  kind: 'management',
  description: 'Protection policies, the number of assets in each and their RPO',
  defaultSchedule: '*/10 * * * *',
  metrics: ['dataprotect_policy_info', 'dataprotect_policy_assets', 'dataprotect_policy_rpo_seconds'],
  // counts the assets of each policy from the published asset list
  after: ['assets'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const samples: Sample[] = [];
    const names = new Map<string, { name: string; type: string | null }>();
    const schedules = new Map<string, ProtectionSchedule>();
    const warned = new Map<string, string>();
    const assetList = ctx.shared.get(ASSET_LIST);
    const perPolicy = new Tally<[string]>();
    for (const policy of await readPolicies(ctx, signal)) {
      names.set(policy.id, { name: policy.name, type: policy.type ?? null });
      const enabled = policy.enabled == null ? '' : String(policy.enabled);
      const labels = { target, policy_id: policy.id, policy: policy.name, policy_type: policy.type ?? '', enabled };
      samples.push({ name: 'dataprotect_policy_info', labels, value: 1 });
      if (assetList) perPolicy.touch([policy.name]);
      else if (policy.summary?.numberOfAssets != null) perPolicy.add([policy.name], policy.summary.numberOfAssets);
      // An EXCLUDED policy protects nothing: it has no RPO, and no schedule to warn about.
      if (policy.type === 'EXCLUDED') continue;
      const schedule = readProtectionSchedule(policy.stages);
      schedules.set(policy.id, schedule);
      samples.push(rpoSample(ctx, policy, schedule, warned));
    }
    if (assetList) {
      for (const asset of assetList.assets.values()) if (asset.policyName !== '') perPolicy.add([asset.policyName]);
    }
    samples.push(...perPolicy.samples('dataprotect_policy_assets', { target }, ['policy']));
    return {
      samples,
      state: { warned },
      publish: [
        [POLICY_NAMES, names],
        [POLICY_SCHEDULES, { readAt: ctx.now().getTime(), byId: schedules }],
      ],
      items: names.size,
    };
  },
});

/** The policy's RPO series; a schedule it cannot read is logged when its reason is new (kept in `warned`). */
function rpoSample(
  ctx: CollectorContext<'management', ProtectionPoliciesState>,
  policy: ProtectionPolicy,
  schedule: ProtectionSchedule,
  warned: Map<string, string>,
): Sample {
  const rpo = policyRpo(policy, schedule, ctx.settings);
  const reason = schedule.readable ? schedule.skipped : schedule.reason;
  if (reason !== undefined) {
    warned.set(policy.id, reason);
    if (ctx.state?.warned.get(policy.id) !== reason) {
      const what = schedule.readable ? 'its RPO comes from its other operations' : 'its RPO is not derived from it';
      const fields = { policy_id: policy.id, policy: policy.name, reason, rpo_source: rpo.source };
      ctx.logger.warn(fields, `protection policy schedule not understood: ${what}`);
    }
  }
  const labels = { target: ctx.target.name, policy_id: policy.id, policy: policy.name, source: rpo.source };
  return { name: 'dataprotect_policy_rpo_seconds', labels, value: rpo.ms / 1000 };
}
