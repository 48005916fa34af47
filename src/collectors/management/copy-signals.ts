/**
 * What the latest-copies and copy-metrics collectors publish about each
 * asset's copies, for the assets and copies collectors of the same target.
 */
import { sharedKey } from '../types';

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

export const LATEST_COPY_TIMES = sharedKey<LatestCopyTimes>('management.latestCopyTimes');
export const COPY_FINGERPRINTS = sharedKey<CopyFingerprints>('management.copyFingerprints');
