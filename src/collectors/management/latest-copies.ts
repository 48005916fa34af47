/**
 * latest-copies: asks the service for the newest copy of every asset, 100 ids
 * a request, and publishes the newest createTime per asset (LATEST_COPY_TIMES).
 * The assets collector combines it with lastAvailableCopyTime, which can lag
 * behind the copies that exist.
 *
 * It has no metric family of its own: the catalog has none for it. Its health
 * shows in dataprotect_collector_success / _duration_seconds, and its result
 * in the assets collector's dataprotect_asset_last_copy_timestamp_seconds and
 * dataprotect_assets_without_copy.
 */
import { LATEST_COPIES_BATCH } from '../../clients/management/client';
import { defineCollector } from '../types';
import { LATEST_COPY_TIMES, chunks, currentAssets, forEachConcurrent } from './shared';

export const latestCopiesCollector = defineCollector<'management'>({
  name: 'latest-copies',
  kind: 'management',
  description: 'Newest copy of every asset from latest-copies (batched), shared with the assets collector',
  defaultSchedule: '*/15 * * * *',
  metrics: [],
  async collect(ctx, signal) {
    const checkedAt = ctx.now().getTime();
    const { list, pages } = await currentAssets(ctx, signal);
    const newest = new Map<string, number | null>();
    for (const id of list.assets.keys()) newest.set(id, null);
    let requests = 0;
    await forEachConcurrent(chunks([...list.assets.keys()], LATEST_COPIES_BATCH), ctx.target.maxConcurrency, signal, async (batch) => {
      requests += 1;
      for (const copy of await ctx.client.latestCopies(batch, signal)) {
        if (!newest.has(copy.assetId)) continue; // an asset that was not asked for
        const known = newest.get(copy.assetId);
        if (known == null || copy.createTime > known) newest.set(copy.assetId, copy.createTime);
      }
    });
    return {
      samples: [],
      publish: [[LATEST_COPY_TIMES, { checkedAt, newest }]],
      items: newest.size,
      pages: pages + requests,
    };
  },
});
