/** What the management collectors publish for each other (`ctx.shared`), and the reads for a value missing or older than staleAfter. */
import { LATEST_COPIES_BATCH } from '../../clients/management/client';
import { collectAll } from '../../clients/management/paging';
import type { Asset, ProtectionPolicy } from '../../clients/management/schemas';
import type { ExporterConfig } from '../../config/load';
import { forEachConcurrent } from '../shared/concurrency';
import { chunks } from '../shared/chunks';
import { uniqueBy } from '../shared/unique';
import { SharedKey, type CollectorContext } from '../types';
import { readProtectionSchedule, type ProtectionSchedule } from './policy-rpo';
import { SERVICE_TIME_AHEAD_MS } from '../shared/service-clock';

/** One non-deleted asset as the collectors need it. */
export interface AssetRecord {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly protectionStatus: string;
  readonly protected: boolean;
  readonly policyId: string | null;
  /** the policy's name, '' when the asset has none */
  readonly policyName: string;
  /** epoch ms, null when the service reports no copy time (null or missing: latest-copies then tells) */
  readonly lastAvailableCopyTime: number | null;
  readonly updatedAt: number | null;
  readonly size: number | null;
  /** newest copy known from every source (lastAvailableCopyTime, latest-copies); null = no copy at all; undefined = unknown */
  readonly newestCopyTime: number | null | undefined;
}

export interface AssetList {
  /** exporter clock, epoch ms */
  readonly readAt: number;
  readonly assets: ReadonlyMap<string, AssetRecord>;
}

/** The policies by id: names for assets whose answer does not embed them, PROTECTION schedules for the assets' RPO. */
export interface Policies {
  readonly readAt: number;
  /** no schedule for an EXCLUDED policy that protection-policies read */
  readonly byId: ReadonlyMap<string, { name: string; type: string | null; schedule?: ProtectionSchedule }>;
}

/** Newest copy createTime per asset from latest-copies. An id present with null: asked, and the asset has no copy. */
export interface LatestCopyTimes {
  readonly readAt: number;
  readonly newest: ReadonlyMap<string, number | null>;
  /** assets whose newest copy latest-copies dates later than the exporter's clock: unknown, whatever lastAvailableCopyTime says */
  readonly ahead: ReadonlySet<string>;
}

/** A number per asset that changes whenever its copy metrics change: the copies collector re-reads an asset whose one moved. */
export interface CopyFingerprints {
  /** when the copy-metrics read ended: never before the service state the fingerprints describe */
  readonly readAt: number;
  readonly byAsset: ReadonlyMap<string, number>;
}

export const ASSET_LIST = new SharedKey<AssetList>('management.assets');
export const POLICIES = new SharedKey<Policies>('management.policies');
export const LATEST_COPY_TIMES = new SharedKey<LatestCopyTimes>('management.latestCopyTimes');
export const COPY_FINGERPRINTS = new SharedKey<CopyFingerprints>('management.copyFingerprints');

type ManagementContext = CollectorContext<'management', unknown>;

/** The asset list the assets collector published (ctx.shared shows it while its series are served), or a fresh read. */
export async function currentAssets(ctx: ManagementContext, signal: AbortSignal): Promise<AssetList> {
  return ctx.shared.get(ASSET_LIST) ?? { assets: await readAssets(ctx, signal), readAt: ctx.now().getTime() };
}

/** The policies protection-policies published, or a fresh read (the assets collector runs before it). */
export async function currentPolicies(ctx: ManagementContext, signal: AbortSignal): Promise<Policies> {
  const published = ctx.shared.get(POLICIES);
  if (published) return published;
  const entry = ({ name, type, stages }: ProtectionPolicy) => ({ name, type: type ?? null, schedule: readProtectionSchedule(stages) });
  const byId = new Map((await readPolicies(ctx, signal)).map((policy) => [policy.id, entry(policy)]));
  return { readAt: ctx.now().getTime(), byId };
}

/** Every protection policy once (random paging may repeat one when the list shifts). */
export async function readPolicies(ctx: ManagementContext, signal: AbortSignal): Promise<ProtectionPolicy[]> {
  return uniqueBy(await collectAll(ctx.client.protectionPolicies({}, signal)), (policy) => policy.id).unique;
}

/** Every non-deleted asset (serial paging); `policies` name the policies of assets whose answer does not. */
export async function readAssets(
  ctx: ManagementContext,
  signal: AbortSignal,
  policies = ctx.shared.get(POLICIES),
): Promise<Map<string, AssetRecord>> {
  const assets = new Map<string, AssetRecord>();
  // a copy time further ahead would keep the asset within its RPO until that date: the out-of-RPO alert could not fire for it
  const latest = ctx.now().getTime() + SERVICE_TIME_AHEAD_MS;
  const ahead: string[] = [];
  for await (const page of ctx.client.assets({}, signal)) {
    for (const asset of page) {
      if (asset.deleted === true) continue;
      const copyTime = asset.lastAvailableCopyTime ?? null;
      const isAhead = copyTime !== null && copyTime > latest;
      if (isAhead) ahead.push(asset.id);
      // one ahead as if the service reported no copy time: latest-copies tells the newest copy instead
      assets.set(asset.id, toAssetRecord({ ...asset, lastAvailableCopyTime: isAhead ? null : copyTime }, policies?.byId));
    }
  }
  if (ahead.length > 0) {
    const message = "assets whose lastAvailableCopyTime is later than the exporter's clock: not taken";
    ctx.logger.warn({ count: ahead.length, assets: ahead.slice(0, 10) }, `${message}, latest-copies tells their newest copy`);
  }
  return assets;
}

/** The record of one raw asset without consulting latest-copies; its type as the service names it. */
function toAssetRecord(asset: Asset, policies: Policies['byId'] | undefined): AssetRecord {
  // The products' top-level protectionPolicy first; _embedded comes only with expand.
  const reference = asset.protectionPolicy?.id || asset.protectionPolicy?.name ? asset.protectionPolicy : asset._embedded?.protectionPolicy;
  const policyId = asset.protectionPolicyId ?? reference?.id ?? null;
  const known = policyId ? policies?.get(policyId) : undefined;
  const protection = protectionOf(asset, reference?.type ?? known?.type);
  return {
    id: asset.id,
    name: asset.name,
    type: asset.type,
    protectionStatus: protection.status,
    protected: protection.protected,
    policyId,
    policyName: reference?.name ?? known?.name ?? policyId ?? '',
    lastAvailableCopyTime: asset.lastAvailableCopyTime ?? null,
    updatedAt: asset.updatedAt ?? null,
    size: asset.size ?? null,
    newestCopyTime: asset.lastAvailableCopyTime ?? null,
  };
}

/** The protection status label and whether RPO applies: protectionStatus as sent, else (the seed's asset has none) from the policy. */
function protectionOf(asset: Asset, policyType: string | null | undefined): { status: string; protected: boolean } {
  if (asset.protectionStatus) return { status: asset.protectionStatus, protected: asset.protectionStatus === 'PROTECTED' };
  const policyId = asset.protectionPolicyId ?? asset.protectionPolicy?.id ?? asset._embedded?.protectionPolicy?.id;
  if (!policyId) return { status: 'UNPROTECTED', protected: false };
  if (policyType === 'EXCLUDED') return { status: 'EXCLUDED', protected: false };
  return { status: 'PROTECTED', protected: true };
}

export function perAssetSeriesFor(settings: ExporterConfig['collection'], asset: AssetRecord): boolean {
  return settings.perAssetSeries === 'all' || (settings.perAssetSeries === 'protected' && asset.protected);
}

/**
 * The newest copy createTime of each asset (null: it has none; absent: its answer was unreadable or `ahead`), asked of latest-copies
 * in batches.
 */
export async function newestCopies(
  ctx: ManagementContext,
  ids: readonly string[],
  signal: AbortSignal,
): Promise<Pick<LatestCopyTimes, 'newest' | 'ahead'>> {
  const newest = new Map<string, number | null>(ids.map((id) => [id, null]));
  const latest = ctx.now().getTime() + SERVICE_TIME_AHEAD_MS;
  const ahead = new Set<string>();
  await forEachConcurrent(chunks(ids, LATEST_COPIES_BATCH), ctx.target.maxConcurrency, signal, async (batch) => {
    const { copies, unreadable } = await ctx.client.latestCopies(batch, signal);
    for (const copy of copies) {
      if (!newest.has(copy.assetId)) continue; // an asset that was not asked for
      // a newest copy that has not happened: the asset's real newest copy is unknown, not this one nor none
      if (copy.createTime > latest) ahead.add(copy.assetId);
      const known = newest.get(copy.assetId);
      if (known == null || copy.createTime > known) newest.set(copy.assetId, copy.createTime);
    }
    for (const id of unreadable) newest.delete(id);
  });
  for (const id of ahead) newest.delete(id);
  if (ahead.size > 0) {
    const message = "latest-copies gives assets a newest copy later than the exporter's clock: their newest copy is unknown";
    ctx.logger.warn({ count: ahead.size, assets: [...ahead].slice(0, 10) }, message);
  }
  return { newest, ahead };
}
