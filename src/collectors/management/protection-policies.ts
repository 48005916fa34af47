/**
 * protection-policies: one info series per policy, and the number of assets
 * in each.
 *
 * dataprotect_policy_assets counts the non-deleted assets of the asset list
 * that the assets collector published (the same assets as dataprotect_assets
 * and dataprotect_asset_info), by policy name. Before that list exists, the
 * policy's own summary.numberOfAssets is used when the service sends it.
 * Policies sharing a name are summed (the label is the name).
 *
 * It publishes the policy names by id (POLICY_NAMES) for assets whose answer
 * does not embed their policy.
 */
import { defineCollector, type Sample } from '../types';
import { ASSET_LIST, POLICY_NAMES, Tally } from './shared';

export const protectionPoliciesCollector = defineCollector<'management'>({
  name: 'protection-policies',
  kind: 'management',
  description: 'Protection policies and the number of assets in each',
  defaultSchedule: '*/10 * * * *',
  metrics: ['dataprotect_policy_info', 'dataprotect_policy_assets'],
  // counts the assets of each policy from the published asset list
  after: ['assets'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const samples: Sample[] = [];
    const names = new Map<string, { name: string; type: string | null }>();
    const assetList = ctx.shared.get(ASSET_LIST);
    const perPolicy = new Tally<[string]>();
    let pages = 0;
    for await (const page of ctx.client.protectionPolicies({}, signal)) {
      pages += 1;
      for (const policy of page) {
        if (names.has(policy.id)) continue; // random paging may repeat an item when the list shifts
        names.set(policy.id, { name: policy.name, type: policy.type ?? null });
        samples.push({
          name: 'dataprotect_policy_info',
          labels: {
            target,
            policy_id: policy.id,
            policy: policy.name,
            policy_type: policy.type ?? '',
            enabled: policy.enabled == null ? '' : String(policy.enabled),
          },
          value: 1,
        });
        if (assetList) perPolicy.touch([policy.name]);
        else if (policy.summary?.numberOfAssets != null) perPolicy.add([policy.name], policy.summary.numberOfAssets);
      }
    }
    if (assetList) {
      for (const asset of assetList.assets.values()) if (asset.policyName !== '') perPolicy.add([asset.policyName]);
    }
    for (const { key: [policy], value } of perPolicy.entries()) {
      samples.push({ name: 'dataprotect_policy_assets', labels: { target, policy }, value });
    }
    return { samples, publish: [[POLICY_NAMES, names]], items: names.size, pages };
  },
});
