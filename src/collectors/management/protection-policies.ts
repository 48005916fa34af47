import type { ProtectionPolicy } from '../../clients/management/schemas';
import { defineCollector, type CollectorContext, type Sample } from '../types';
import { policyRpo, readProtectionSchedule, type ProtectionSchedule } from './policy-rpo';
import { ASSET_LIST, POLICIES, readPolicies } from './published';
import { Tally } from '../shared/tally';

export interface ProtectionPoliciesState {
  /** the unreadable-schedule reason last logged, by policy id */
  readonly warned: ReadonlyMap<string, string>;
}

/**
 * Each policy's info, number of assets, and RPO with its source (policy-rpo.ts). dataprotect_policy_assets counts the published
 * asset list's assets (as dataprotect_assets) by policy name, so policies sharing a name are summed; before that list exists, the
 * policy's summary.numberOfAssets if sent. An unreadable schedule is logged once per reason (kept in the state), not every run.
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
    const byId = new Map<string, { name: string; type: string | null; schedule?: ProtectionSchedule }>();
    const warned = new Map<string, string>();
    const assetList = ctx.shared.get(ASSET_LIST);
    const perPolicy = new Tally<[string]>();
    for (const policy of await readPolicies(ctx, signal)) {
      const enabled = policy.enabled == null ? '' : String(policy.enabled);
      const labels = { target, policy_id: policy.id, policy: policy.name, policy_type: policy.type ?? '', enabled };
      samples.push({ name: 'dataprotect_policy_info', labels, value: 1 });
      if (assetList) perPolicy.add([policy.name], 0);
      else if (policy.summary?.numberOfAssets != null) perPolicy.add([policy.name], policy.summary.numberOfAssets);
      // An EXCLUDED policy protects nothing: no RPO, no schedule to warn about.
      const schedule = policy.type === 'EXCLUDED' ? undefined : readProtectionSchedule(policy.stages);
      byId.set(policy.id, { name: policy.name, type: policy.type ?? null, schedule });
      if (schedule) samples.push(rpoSample(ctx, policy, schedule, warned));
    }
    for (const asset of assetList?.assets.values() ?? []) if (asset.policyName !== '') perPolicy.add([asset.policyName]);
    samples.push(...perPolicy.samples('dataprotect_policy_assets', { target }, ['policy']));
    return { samples, state: { warned }, publish: [[POLICIES, { readAt: ctx.now().getTime(), byId }]], items: byId.size };
  },
});

/** The policy's RPO series; a schedule it cannot read is logged when its reason is new. */
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
