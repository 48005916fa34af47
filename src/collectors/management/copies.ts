import { ApiError, isStatusError } from '../../clients/errors';
import type { ManagementClient } from '../../clients/management/client';
import { ENDPOINTS } from '../../clients/management/endpoints';
import { collectAll } from '../../clients/management/paging';
import type { Copy } from '../../clients/management/schemas';
import { defineCollector, type CollectorContext, type Sample } from '../types';
import { COPY_FINGERPRINTS, currentAssets, perAssetSeriesFor, type AssetRecord } from './published';
import { forEachConcurrent } from '../shared/concurrency';
import { UNKNOWN_LABEL } from '../shared/tally';
import { uniqueBy } from '../shared/unique';
import { fnv1a } from '../../util/fnv1a';

interface LocationCopies {
  readonly count: number;
  readonly bytes: number;
  /** copies without a size (not in bytes): while there are any, the location's total size is unknown */
  readonly unsized: number;
  /** retention times (epoch ms, ascending) of the copies that have one */
  readonly expiries: readonly number[];
  /** sizes of those copies, in the same order (NaN: no size given) */
  readonly expiringSizes: readonly number[];
}

interface AssetCopies {
  /** the asset's fields when its copies were read: a change triggers a re-read */
  readonly lastAvailableCopyTime: number | null;
  readonly updatedAt: number | null;
  /** the copy-metrics fingerprint when the copies were read (null: none was published yet) */
  readonly fingerprint: number | null;
  readonly readAt: number;
  /** when the periodic re-read is due (exporter clock, epoch ms) */
  readonly dueAt: number;
  readonly locations: ReadonlyMap<string, LocationCopies>;
}

export interface CopiesState {
  readonly assets: ReadonlyMap<string, AssetCopies>;
}

/**
 * Number and total size of each asset's live copies per location (the client drops deletion states, copy-states.ts), read
 * incrementally so that a large estate is not asked for every asset's copies each run: an asset's copies are read again only when
 * it is new, its lastAvailableCopyTime or updatedAt changed, its copy-metrics fingerprint changed (copies tiered, deleted by the
 * service, or added while lastAvailableCopyTime lags), or its re-read is due (every `collection.copiesFullRescanPeriod`; after a
 * cold start at a per-asset point of the period's second half, so that they do not all fall together). Expired copies are dropped
 * locally. With a quarter of the time limit left, no further asset is read: a cold start on a large or slow estate takes a few
 * runs instead of failing each. The state keeps two numbers per expiring copy, never the copy objects.
 */
export const copiesCollector = defineCollector<'management', CopiesState>({
  name: 'copies',
  kind: 'management',
  description: "Each asset's copies per location (count and bytes), read incrementally",
  defaultSchedule: '*/10 * * * *',
  metrics: ['dataprotect_asset_copies', 'dataprotect_asset_copies_size_bytes'],
  // reads the asset list and the copy-metrics fingerprints that steer its re-reads
  after: ['assets', 'copy-metrics'],
  async collect(ctx, signal) {
    const now = ctx.now().getTime();
    const assets = [...(await currentAssets(ctx, signal)).assets.values()];
    const { next, toRead } = keepUnchanged(ctx, assets, now);
    const read = await readCopies(ctx, signal, toRead, next, now);
    if (read < toRead.length) {
      const message = 'time limit near: the copies of the other assets are read in the next runs';
      ctx.logger.info({ read, deferred: toRead.length - read }, message);
    }
    return { samples: copySamples(ctx.target.name, assets, next), state: { assets: next }, items: read };
  },
});

type CopiesContext = CollectorContext<'management', CopiesState>;

/** The known copies of the assets that need no read (less what expired), and the assets to read. */
function keepUnchanged(
  ctx: CopiesContext,
  assets: readonly AssetRecord[],
  now: number,
): { next: Map<string, AssetCopies>; toRead: AssetRecord[] } {
  const published = ctx.shared.get(COPY_FINGERPRINTS);
  const next = new Map<string, AssetCopies>();
  const toRead: AssetRecord[] = [];
  for (const asset of assets) {
    if (!perAssetSeriesFor(ctx.settings, asset)) continue;
    const known = ctx.state?.assets.get(asset.id);
    const fingerprint = published?.byAsset.get(asset.id) ?? null;
    // A fingerprint unknown at the read is adopted only if taken before it: a later one may hide a change the read missed.
    const unknownAtRead = known !== undefined && known.fingerprint === null && fingerprint !== null;
    const adoptable = unknownAtRead && published !== undefined && published.readAt <= known.readAt;
    const changed =
      known === undefined ||
      known.lastAvailableCopyTime !== asset.lastAvailableCopyTime ||
      known.updatedAt !== asset.updatedAt ||
      (known.fingerprint !== null && fingerprint !== null && known.fingerprint !== fingerprint) ||
      (unknownAtRead && !adoptable) ||
      now >= known.dueAt;
    if (changed) toRead.push(asset);
    else next.set(asset.id, dropExpired(adoptable ? { ...known, fingerprint } : known, now));
  }
  return { next, toRead };
}

/** Reads the copies of `toRead` into `next`, as time allows; returns how many it read. */
async function readCopies(
  ctx: CopiesContext,
  signal: AbortSignal,
  toRead: readonly AssetRecord[],
  next: Map<string, AssetCopies>,
  now: number,
): Promise<number> {
  const period = ctx.settings.copiesFullRescanPeriod;
  const fingerprints = ctx.shared.get(COPY_FINGERPRINTS)?.byAsset;
  const limit = ctx.timeLimit;
  let read = 0;
  await forEachConcurrent(toRead, ctx.target.maxConcurrency, signal, async (asset) => {
    const known = ctx.state?.assets.get(asset.id);
    // A quarter of the time limit is kept for the reads already started.
    if (limit && limit.leftMs() < limit.totalMs / 4) {
      // What was known stays (less what expired); it still differs from the asset list, is due or is absent: the next run reads it.
      if (known) next.set(asset.id, dropExpired(known, now));
      return;
    }
    read += 1;
    const copies = await copiesOf(ctx.client, asset.id, signal);
    if (!copies) return;
    // the first read after a cold start is due again at a point of the period's second half fixed by the asset
    const firstDue = period * (0.5 + (0.5 * fnv1a(asset.id)) / 2 ** 32);
    next.set(asset.id, {
      lastAvailableCopyTime: asset.lastAvailableCopyTime,
      updatedAt: asset.updatedAt,
      fingerprint: fingerprints?.get(asset.id) ?? null,
      readAt: now,
      dueAt: now + (known ? period : firstDue),
      locations: aggregate(copies, now),
    });
  });
  return read;
}

/** The asset's copies, each once (a listing that shifts while paged repeats one); undefined when the asset is gone. */
function copiesOf(client: ManagementClient, assetId: string, signal: AbortSignal): Promise<Copy[] | undefined> {
  const listed = collectAll(client.assetCopies(assetId, {}, signal)).then((copies) => uniqueBy(copies, (copy) => copy.id).unique);
  return listed.catch(async (error: unknown) => {
    if (!isStatusError(error, 404)) throw error;
    // Deleted since the asset list (it will leave the list too), unless the service still lists it: a 404 "may also mask a
    // 401 or 403" (the seed), and skipping would drop its series while reporting success.
    const asset = await client.asset(assetId, signal);
    if (asset !== undefined && asset.deleted !== true) {
      const message = `HTTP 404 for the copies of asset ${assetId.slice(0, 64)}, which the service still lists: `
        + 'does the account lack the privilege to read copies?';
      throw new ApiError('status', ENDPOINTS.assetCopies, message, 404);
    }
    return undefined;
  });
}

function copySamples(target: string, assets: readonly AssetRecord[], next: ReadonlyMap<string, AssetCopies>): Sample[] {
  const samples: Sample[] = [];
  for (const asset of assets) {
    const entry = next.get(asset.id);
    if (!entry) continue;
    for (const [location, copies] of entry.locations) {
      const labels = { target, asset_id: asset.id, asset_name: asset.name, location };
      samples.push({ name: 'dataprotect_asset_copies', labels, value: copies.count });
      if (copies.unsized === 0) samples.push({ name: 'dataprotect_asset_copies_size_bytes', labels, value: copies.bytes });
    }
  }
  return samples;
}

/** Copies grouped by location ("unknown" for a copy that gives none), without those already past their retention time. */
export function aggregate(copies: readonly Copy[], now: number): Map<string, LocationCopies> {
  const byLocation = new Map<string, { count: number; bytes: number; unsized: number; expiring: Array<[number, number]> }>();
  for (const copy of copies) {
    if (copy.retentionTime != null && copy.retentionTime <= now) continue;
    const location = copy.location ?? UNKNOWN_LABEL;
    let entry = byLocation.get(location);
    if (!entry) byLocation.set(location, (entry = { count: 0, bytes: 0, unsized: 0, expiring: [] }));
    entry.count += 1;
    if (copy.size == null) entry.unsized += 1;
    else entry.bytes += copy.size;
    if (copy.retentionTime != null) entry.expiring.push([copy.retentionTime, copy.size ?? Number.NaN]);
  }
  const out = new Map<string, LocationCopies>();
  for (const [location, { expiring, ...counts }] of byLocation) {
    expiring.sort((a, b) => a[0] - b[0]);
    out.set(location, { ...counts, expiries: expiring.map(([time]) => time), expiringSizes: expiring.map(([, size]) => size) });
  }
  return out;
}

/** The entry without the copies whose retention time has passed (a new object; the old state stays intact). */
export function dropExpired(entry: AssetCopies, now: number): AssetCopies {
  if (![...entry.locations.values()].some((copies) => (copies.expiries[0] ?? Infinity) <= now)) return entry;
  const locations = new Map<string, LocationCopies>();
  for (const [location, copies] of entry.locations) {
    const expired = copies.expiries.filter((time) => time <= now).length; // ascending: the first ones
    if (expired === copies.count) continue; // nothing left in this location
    const sizes = copies.expiringSizes.slice(0, expired);
    locations.set(location, {
      count: copies.count - expired,
      bytes: copies.bytes - sizes.reduce((sum, size) => (Number.isNaN(size) ? sum : sum + size), 0),
      unsized: copies.unsized - sizes.filter(Number.isNaN).length,
      expiries: copies.expiries.slice(expired),
      expiringSizes: copies.expiringSizes.slice(expired),
    });
  }
  return { ...entry, locations };
}
