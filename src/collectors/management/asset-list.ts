/**
 * The target's asset list: read by the assets collector and published for
 * the others, which read it themselves only while no fresh list is published.
 */
import type { ManagementClient } from '../../clients/management/client';
import type { Asset } from '../../clients/management/schemas';
import { sharedKey, type CollectorContext } from '../types';
import { protectionOf } from './protection-status';

/** One non-deleted asset as the collectors need it. */
export interface AssetRecord {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  /** protectionStatus, or derived from the policy when the service does not send it (see protectionOf) */
  readonly protectionStatus: string;
  readonly protected: boolean;
  readonly policyId: string | null;
  /** the policy's name, '' when the asset has none */
  readonly policyName: string;
  /** epoch ms, null when the service reports no copy time (null or missing: latest-copies then tells) */
  readonly lastAvailableCopyTime: number | null;
  readonly updatedAt: number | null;
  readonly size: number | null;
  /** newest copy known from every source (lastAvailableCopyTime, latest-copies); null = no copy at all */
  readonly newestCopyTime: number | null;
}

export interface AssetList {
  /** when the list was read (exporter clock, epoch ms) */
  readonly readAt: number;
  readonly assets: ReadonlyMap<string, AssetRecord>;
}

/** Policy names by id, for assets whose answer does not embed the policy. */
export type PolicyNames = ReadonlyMap<string, { name: string; type: string | null }>;

export const ASSET_LIST = sharedKey<AssetList>('management.assets');
export const POLICY_NAMES = sharedKey<PolicyNames>('management.policyNames');

/**
 * Builds the record of one raw asset without consulting latest-copies. The
 * type passes through as the service names it (the seeds' HV_VIRTUAL_MACHINE,
 * the products' VMWARE_VIRTUAL_MACHINE alike).
 */
function toAssetRecord(asset: Asset, policyNames: PolicyNames | undefined): AssetRecord {
  // The products' top-level protectionPolicy first; _embedded comes only with expand.
  const reference = asset.protectionPolicy?.id || asset.protectionPolicy?.name ? asset.protectionPolicy : asset._embedded?.protectionPolicy;
  const policyId = asset.protectionPolicyId ?? reference?.id ?? null;
  const known = policyId ? policyNames?.get(policyId) : undefined;
  const policyName = reference?.name ?? known?.name ?? policyId ?? '';
  const protection = protectionOf(asset, reference?.type ?? known?.type);
  return {
    id: asset.id,
    name: asset.name,
    type: asset.type,
    protectionStatus: protection.status,
    protected: protection.protected,
    policyId,
    policyName,
    lastAvailableCopyTime: asset.lastAvailableCopyTime ?? null,
    updatedAt: asset.updatedAt ?? null,
    size: asset.size ?? null,
    newestCopyTime: asset.lastAvailableCopyTime ?? null,
  };
}

/** Reads every non-deleted asset (serial paging). */
export async function readAssets(
  client: ManagementClient,
  policyNames: PolicyNames | undefined,
  signal: AbortSignal,
): Promise<Map<string, AssetRecord>> {
  const assets = new Map<string, AssetRecord>();
  for await (const page of client.assets({}, signal)) {
    for (const asset of page) {
      if (asset.deleted === true) continue;
      assets.set(asset.id, toAssetRecord(asset, policyNames));
    }
  }
  return assets;
}

/**
 * The asset list another collector needs: the one the assets collector
 * published, or a fresh read of the service before its first success and
 * once the published one is older than staleAfter (the assets collector
 * keeps failing: its list must not steer the others forever).
 */
export async function currentAssets<S>(ctx: CollectorContext<'management', S>, signal: AbortSignal): Promise<AssetList> {
  const published = ctx.shared.get(ASSET_LIST);
  if (published && ctx.now().getTime() - published.readAt <= ctx.settings.staleAfter) return published;
  const assets = await readAssets(ctx.client, ctx.shared.get(POLICY_NAMES), signal);
  return { readAt: ctx.now().getTime(), assets };
}
