/**
 * Copies in a deletion state. The service lists a copy being deleted, deleted
 * (kept as a record), soft-deleted or whose deletion failed beside the live
 * ones, with its `state`; the vendor's own scripts filter them out with
 * `not state in (...)`. They are kept apart from the asset's live copies so
 * that every truth the estate gives (copies, copy metrics, compliance) is of
 * live copies only, and only the listings that show them (an asset's copies,
 * latest-copies) merge them in.
 */
import type { SeededRandom } from '../core/random';
import { makeCopy } from './copies';
import type { AssetRecord, CopyRecord } from './records';

export const DELETED_COPY_STATES = ['DELETED', 'SOFT_DELETED', 'DELETING', 'DELETE_FAILED'] as const;
/** A copy deleted from storage whose catalog entry could not be removed: listed, not live. */
const CATALOG_DELETE_FAILED = 'CATALOG_DELETE_FAILED';

/** Share of the assets with copies that also list copies in a deletion state. */
const ASSETS_WITH_DELETED_COPIES = 0.3;

/**
 * Gives some assets one copy in each deletion state (the CATALOG_DELETE_FAILED
 * one a twin of the DELETED one, so the estate's random stream stays as it was). Two of them are newer
 * than the asset's newest live copy (a backup deleted by hand right after it
 * was made): latest-copies names them unless its filter leaves them out.
 */
export function addDeletedCopies(rng: SeededRandom, assets: readonly AssetRecord[], startMs: number): void {
  for (const asset of assets) {
    const newest = asset.copies[asset.copies.length - 1];
    if (!newest || !rng.chance(ASSETS_WITH_DELETED_COPIES)) continue;
    const oldest = asset.copies[0] as CopyRecord;
    const deleted: CopyRecord[] = DELETED_COPY_STATES.map((state, index) => {
      const newer = index >= 2;
      const createMs = newer ? Math.min(startMs, newest.createMs + (index - 1) * 1000) : Math.max(asset.createdMs, oldest.createMs - (index + 1) * 1000);
      const copy = makeCopy(rng, asset, newest.policy, {
        createMs,
        retentionMs: Math.max(newest.retentionMs, startMs) + 30 * 86_400_000,
        replicated: false,
        location: 'LOCAL',
        tierAtMs: Infinity,
        storageSystemId: newest.storageSystemId,
      });
      return { ...copy, state };
    });
    const first = deleted[0] as CopyRecord;
    deleted.push({ ...first, id: twinId(first.id), createMs: first.createMs - 500, state: CATALOG_DELETE_FAILED });
    asset.deletedCopies = deleted.sort((a, b) => a.createMs - b.createMs);
  }
}

/** The copies the listings show: live and deletion-state ones, ascending createMs. */
export function listedCopies(asset: AssetRecord): CopyRecord[] {
  const deleted = asset.deletedCopies;
  if (!deleted || deleted.length === 0) return asset.copies;
  return [...asset.copies, ...deleted].sort((a, b) => a.createMs - b.createMs);
}

/** Another id of the same shape: the first hex digit turned round. */
function twinId(id: string): string {
  const digit = parseInt(id.charAt(0), 16);
  return Number.isNaN(digit) ? `x${id}` : (15 - digit).toString(16) + id.slice(1);
}
