/**
 * Values the management collectors of one target share (published on success
 * through CollectResult.publish), and helpers they have in common.
 */
import type { ManagementClient } from '../../clients/management/client';
import type { Asset } from '../../clients/management/schemas';
import type { ExporterConfig } from '../../config/load';
import { sharedKey, type CollectorContext } from '../types';
import { readProtectionSchedule, type ProtectionSchedule } from './policy-rpo';

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
  /** epoch ms, null when the service reports no copy */
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

/** Newest copy createTime per asset from latest-copies. An id present with null: asked, and the asset has no copy. */
export interface LatestCopyTimes {
  readonly checkedAt: number;
  readonly newest: ReadonlyMap<string, number | null>;
}

/**
 * A number per asset that changes whenever the asset's copy metrics change
 * (total count, per stage count, newest and oldest copy): the copies
 * collector re-reads an asset whose fingerprint moved, which catches what
 * lastAvailableCopyTime and updatedAt do not show (copies tiered to the
 * cloud, expired, or added while lastAvailableCopyTime lags).
 */
export interface CopyFingerprints {
  /** when the copy-metrics read ended (exporter clock, epoch ms): never before the service state the fingerprints describe */
  readonly readAt: number;
  readonly byAsset: ReadonlyMap<string, number>;
}

/** Policy names by id, for assets whose answer does not embed the policy. */
export type PolicyNames = ReadonlyMap<string, { name: string; type: string | null }>;

/** Each policy's PROTECTION schedule by policy id, as read at `readAt` (exporter clock, epoch ms). */
export interface PolicySchedules {
  readonly readAt: number;
  readonly byId: ReadonlyMap<string, ProtectionSchedule>;
}

export const ASSET_LIST = sharedKey<AssetList>('management.assets');
export const LATEST_COPY_TIMES = sharedKey<LatestCopyTimes>('management.latestCopyTimes');
export const POLICY_NAMES = sharedKey<PolicyNames>('management.policyNames');
export const POLICY_SCHEDULES = sharedKey<PolicySchedules>('management.policySchedules');
export const COPY_FINGERPRINTS = sharedKey<CopyFingerprints>('management.copyFingerprints');

export type ManagementContext<S> = CollectorContext<'management', S>;

/**
 * The protection status label and whether RPO applies. The service's
 * protectionStatus is used as sent (unknown values pass through, and only
 * PROTECTED counts as protected). The seed's asset has no such field; when it
 * is absent the status is derived from the policy: none assigned ->
 * UNPROTECTED, a policy of type EXCLUDED -> EXCLUDED, any other policy ->
 * PROTECTED.
 */
export function protectionOf(asset: Asset, policyType: string | null | undefined): { status: string; protected: boolean } {
  if (asset.protectionStatus) return { status: asset.protectionStatus, protected: asset.protectionStatus === 'PROTECTED' };
  const policyId = asset.protectionPolicyId ?? asset.protectionPolicy?.id ?? asset._embedded?.protectionPolicy?.id;
  if (!policyId) return { status: 'UNPROTECTED', protected: false };
  if (policyType === 'EXCLUDED') return { status: 'EXCLUDED', protected: false };
  return { status: 'PROTECTED', protected: true };
}

/** Whether per-asset series are emitted for this asset under `collection.perAssetSeries`. */
export function perAssetSeriesFor(settings: ExporterConfig['collection'], asset: AssetRecord): boolean {
  switch (settings.perAssetSeries) {
    case 'all':
      return true;
    case 'protected':
      return asset.protected;
    case 'none':
      return false;
  }
}

/**
 * Builds the record of one raw asset without consulting latest-copies. The
 * type passes through as the service names it (the seeds' HV_VIRTUAL_MACHINE,
 * the products' VMWARE_VIRTUAL_MACHINE alike).
 */
export function toAssetRecord(asset: Asset, policyNames: PolicyNames | undefined): AssetRecord {
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
    lastAvailableCopyTime: asset.lastAvailableCopyTime,
    updatedAt: asset.updatedAt ?? null,
    size: asset.size ?? null,
    newestCopyTime: asset.lastAvailableCopyTime,
  };
}

/** Reads every non-deleted asset (serial paging). */
export async function readAssets(client: ManagementClient, policyNames: PolicyNames | undefined, signal: AbortSignal): Promise<{ assets: Map<string, AssetRecord>; pages: number }> {
  const assets = new Map<string, AssetRecord>();
  let pages = 0;
  for await (const page of client.assets({}, signal)) {
    pages += 1;
    for (const asset of page) {
      if (asset.deleted === true) continue;
      assets.set(asset.id, toAssetRecord(asset, policyNames));
    }
  }
  return { assets, pages };
}

/**
 * The asset list another collector needs: the one the assets collector
 * published, or a fresh read of the service before its first success and
 * once the published one is older than staleAfter (the assets collector
 * keeps failing: its list must not steer the others forever).
 */
export async function currentAssets<S>(ctx: ManagementContext<S>, signal: AbortSignal): Promise<{ list: AssetList; pages: number }> {
  const published = ctx.shared.get(ASSET_LIST);
  if (published && ctx.now().getTime() - published.readAt <= ctx.settings.staleAfter) return { list: published, pages: 0 };
  const { assets, pages } = await readAssets(ctx.client, ctx.shared.get(POLICY_NAMES), signal);
  return { list: { readAt: ctx.now().getTime(), assets }, pages };
}

/**
 * The policy schedules the protection-policies collector published, or a
 * fresh read of the policies before its first success (the assets collector
 * runs first) and once the published ones are older than staleAfter.
 */
export async function currentPolicySchedules<S>(ctx: ManagementContext<S>, signal: AbortSignal): Promise<{ schedules: PolicySchedules; pages: number }> {
  const published = ctx.shared.get(POLICY_SCHEDULES);
  if (published && ctx.now().getTime() - published.readAt <= ctx.settings.staleAfter) return { schedules: published, pages: 0 };
  const byId = new Map<string, ProtectionSchedule>();
  let pages = 0;
  for await (const page of ctx.client.protectionPolicies({}, signal)) {
    pages += 1;
    for (const policy of page) if (!byId.has(policy.id)) byId.set(policy.id, readProtectionSchedule(policy.stages));
  }
  return { schedules: { readAt: ctx.now().getTime(), byId }, pages };
}

/** Runs `work` on every item with at most `limit` running at once; the first failure ends it (the others are not awaited further). */
export async function forEachConcurrent<T>(items: readonly T[], limit: number, signal: AbortSignal, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      signal.throwIfAborted();
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** Splits a list into chunks of `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Counts by a composite key, kept as the label values in a stable order. */
export class Tally<K extends readonly string[]> {
  private readonly counts = new Map<string, { key: K; value: number }>();

  add(key: K, amount = 1): void {
    const id = key.join('\u0000');
    const entry = this.counts.get(id);
    if (entry) entry.value += amount;
    else this.counts.set(id, { key, value: amount });
  }

  /** makes sure the key is present (with 0), so a series can show 0 instead of disappearing */
  touch(key: K): void {
    this.add(key, 0);
  }

  entries(): Array<{ key: K; value: number }> {
    return [...this.counts.values()];
  }
}
