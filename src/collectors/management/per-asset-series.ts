import type { ExporterConfig } from '../../config/load';
import type { AssetRecord } from './asset-list';

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
