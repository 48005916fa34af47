import { defineCollector, type Sample } from '../types';
import { COPY_FINGERPRINTS, currentAssets, perAssetSeriesFor } from './published';
import { fnv1a } from '../../util/fnv1a';
import { compositeKey } from '../../util/composite-key';
import type { CopyMetrics } from '../../clients/management/schemas';

/**
 * The newest copy per asset and stage type (PROTECTION, REPLICATION, CLOUD_TIER ...), to watch replicated and tiered copies like
 * backups; deleted assets are left out. The endpoint pages at random only: past its 10,000th row, assets get no series (the client
 * logs it). Publishes each asset's copy-metrics fingerprint (COPY_FINGERPRINTS), the copies collector's signal of a change.
 */
export const copyMetricsCollector = defineCollector<'management'>({
  name: 'copy-metrics',
  kind: 'management',
  description: 'Newest copy per asset and policy stage type, from copy-metrics',
  defaultSchedule: '*/15 * * * *',
  metrics: ['dataprotect_asset_stage_latest_copy_timestamp_seconds'],
  // reads the asset list the assets collector publishes (else it would read the list itself)
  after: ['assets'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const list = await currentAssets(ctx, signal);
    const newest = new Map<string, Sample>();
    const fingerprints = new Map<string, number>();
    let items = 0;
    for await (const page of ctx.client.copyMetrics(signal)) {
      for (const metrics of page) {
        items += 1;
        fingerprints.set(metrics.assetId, fingerprint(metrics, fingerprints.get(metrics.assetId)));
        const asset = list.assets.get(metrics.assetId);
        if (!asset || !perAssetSeriesFor(ctx.settings, asset)) continue;
        for (const { stageType, latestCopyTime } of metrics.stageCopyMetrics ?? []) {
          const key = compositeKey([asset.id, stageType]);
          if (latestCopyTime == null || latestCopyTime / 1000 <= (newest.get(key)?.value ?? -Infinity)) continue;
          const labels = { target, asset_id: asset.id, asset_name: asset.name, stage_type: stageType };
          newest.set(key, { name: 'dataprotect_asset_stage_latest_copy_timestamp_seconds', labels, value: latestCopyTime / 1000 });
        }
      }
    }
    return {
      samples: [...newest.values()],
      publish: [[COPY_FINGERPRINTS, { readAt: ctx.now().getTime(), byAsset: fingerprints }]],
      items,
    };
  },
});

/** The copy metrics of one asset as a number (stages in a stable order); folds in a previous item of the same asset. */
function fingerprint(metrics: CopyMetrics, previous: number | undefined): number {
  const stages = (metrics.stageCopyMetrics ?? [])
    .map((stage) => `${stage.stageType}:${stage.copyCount ?? ''}:${stage.latestCopyTime ?? ''}:${stage.oldestCopyTime ?? ''}`)
    .sort();
  return fnv1a(`${previous ?? ''}|${metrics.totalNumbers ?? ''}|${stages.join(',')}`);
}
