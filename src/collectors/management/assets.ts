import { ApiError } from '../../clients/errors';
import { defineCollector, type CollectorContext, type Sample } from '../types';
import { policyRpo } from './policy-rpo';
import { ASSET_LIST, currentPolicies, LATEST_COPY_TIMES, newestCopies, perAssetSeriesFor, readAssets } from './published';
import type { AssetRecord, LatestCopyTimes, Policies } from './published';
import { Tally } from '../shared/tally';

/** How long this collector trusts its own latest-copies answer before asking again. */
const OWN_LATEST_MAX_AGE_MS = 30 * 60_000;

type OwnLatest = { checkedAt: number; newest: number | null };

export interface AssetsState {
  /** latest-copies answers this collector asked for itself, by asset id */
  ownLatest: ReadonlyMap<string, OwnLatest>;
}

/**
 * Non-deleted assets (policy, protection status, size, newest copy, RPO) and counts per type and status; publishes ASSET_LIST. Newest
 * copy = max(lastAvailableCopyTime, latest-copies' newest createTime); until the latest-copies collector has published, this one asks
 * latest-copies for assets without lastAvailableCopyTime, so that even its first run counts no asset with copies as "without copy".
 */
export const assetsCollector = defineCollector<'management', AssetsState>({
  name: 'assets',
  kind: 'management',
  description: 'Non-deleted assets: policy, protection status, size, newest copy, RPO; counts per type and status',
  defaultSchedule: '*/2 * * * *',
  metrics: [
    'dataprotect_asset_info',
    'dataprotect_asset_last_copy_timestamp_seconds',
    'dataprotect_asset_without_copy',
    'dataprotect_asset_size_bytes',
    'dataprotect_asset_rpo_seconds',
    'dataprotect_assets',
    'dataprotect_assets_without_copy',
  ],
  async collect(ctx, signal) {
    const now = ctx.now().getTime();
    const policies = await currentPolicies(ctx, signal);
    const raw = await readAssets(ctx, signal, policies);
    const published = ctx.shared.get(LATEST_COPY_TIMES);
    const ownLatest = await askLatestCopies(ctx, raw, published, now, signal);
    const assets = new Map<string, AssetRecord>();
    for (const asset of raw.values()) {
      const own = ownLatest.get(asset.id);
      const asked = own ? own.newest : published?.newest.get(asset.id);
      const times = [asset.lastAvailableCopyTime, asked].filter((time) => time != null);
      // unknown, not "no copy", when latest-copies' answer for it was unreadable; unknown too when it dates the newest copy ahead of
      // the clock: a lagging lastAvailableCopyTime would then be presented as the newest copy
      const newestCopyTime = times.length > 0 ? Math.max(...times) : asked === undefined ? undefined : null;
      assets.set(asset.id, { ...asset, newestCopyTime: !own && published?.ahead.has(asset.id) ? undefined : newestCopyTime });
    }
    return {
      samples: assetSamples(ctx, assets, policies),
      state: { ownLatest },
      publish: [[ASSET_LIST, { readAt: now, assets }]],
      items: assets.size,
    };
  },
});

/** latest-copies' answers for assets without lastAvailableCopyTime: carried over, or asked now. */
async function askLatestCopies(
  ctx: CollectorContext<'management', AssetsState>,
  raw: ReadonlyMap<string, AssetRecord>,
  published: LatestCopyTimes | undefined,
  now: number,
  signal: AbortSignal,
): Promise<Map<string, OwnLatest>> {
  const ownLatest = new Map<string, OwnLatest>();
  const unknown: string[] = [];
  for (const asset of raw.values()) {
    if (asset.lastAvailableCopyTime !== null) continue;
    const kept = ctx.state?.ownLatest.get(asset.id);
    // asked again once old: the latest-copies collector may be disabled or failing
    const own = kept && now - kept.checkedAt < OWN_LATEST_MAX_AGE_MS ? kept : undefined;
    const publishedKnows = published?.newest.has(asset.id) ?? false;
    if (own && (!publishedKnows || own.checkedAt > (published as LatestCopyTimes).readAt)) ownLatest.set(asset.id, own);
    else if (!own && !publishedKnows) unknown.push(asset.id);
  }
  let asked: ReadonlyMap<string, number | null>;
  try {
    asked = (await newestCopies(ctx, unknown, signal)).newest;
  } catch (error) {
    // latest-copies' own answer (a status, a malformed page), not the target's: the asset list stands, with the last answers
    if (!(error instanceof ApiError) || !['status', 'protocol', 'parse'].includes(error.kind)) throw error;
    const message = 'latest-copies failed: these assets keep their last newest copy, or none is known';
    ctx.logger.warn({ err: error.message, assets: unknown.length }, message);
    for (const id of unknown) {
      const kept = ctx.state?.ownLatest.get(id);
      if (kept) ownLatest.set(id, kept);
    }
    return ownLatest;
  }
  for (const [id, newest] of asked) ownLatest.set(id, { checkedAt: now, newest });
  return ownLatest;
}

function assetSamples(
  ctx: CollectorContext<'management', AssetsState>,
  assets: ReadonlyMap<string, AssetRecord>,
  policies: Policies,
): Sample[] {
  const target = ctx.target.name;
  const samples: Sample[] = [];
  const counts = new Tally<[string, string]>();
  const withoutCopy = new Tally<[string, string]>();
  for (const asset of assets.values()) {
    const group: [string, string] = [asset.type, asset.protectionStatus];
    counts.add(group);
    withoutCopy.add(group, asset.newestCopyTime === null ? 1 : 0);
    if (!perAssetSeriesFor(ctx.settings, asset)) continue;
    const labels = { target, asset_id: asset.id, asset_name: asset.name, asset_type: asset.type, policy: asset.policyName };
    samples.push({ name: 'dataprotect_asset_info', labels: { ...labels, protection_status: asset.protectionStatus }, value: 1 });
    // said, not left to an absent last-copy series: that also stands for an unknown newest copy
    if (asset.newestCopyTime === null) samples.push({ name: 'dataprotect_asset_without_copy', labels, value: 1 });
    else if (asset.newestCopyTime !== undefined) {
      samples.push({ name: 'dataprotect_asset_last_copy_timestamp_seconds', labels, value: asset.newestCopyTime / 1000 });
    }
    if (asset.size !== null) samples.push({ name: 'dataprotect_asset_size_bytes', labels, value: asset.size });
    if (asset.protected) {
      const schedule = asset.policyId === null ? undefined : policies.byId.get(asset.policyId)?.schedule;
      const rpo = policyRpo({ id: asset.policyId, name: asset.policyName }, schedule, ctx.settings);
      samples.push({ name: 'dataprotect_asset_rpo_seconds', labels, value: rpo.ms / 1000 });
    }
  }
  const groups = ['asset_type', 'protection_status'] as const;
  return [
    ...samples,
    ...counts.samples('dataprotect_assets', { target }, groups),
    ...withoutCopy.samples('dataprotect_assets_without_copy', { target }, groups),
  ];
}
