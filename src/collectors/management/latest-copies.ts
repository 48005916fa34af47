import { defineCollector } from '../types';
import { currentAssets, LATEST_COPY_TIMES, newestCopies } from './published';

/** The newest copy of every asset, for the assets collector (lastAvailableCopyTime can lag); its metric counts the assets where it lags. */
export const latestCopiesCollector = defineCollector<'management'>({
  name: 'latest-copies',
  kind: 'management',
  description: 'Newest copy of every asset from latest-copies (batched), shared with the assets collector',
  defaultSchedule: '*/15 * * * *',
  metrics: ['dataprotect_assets_copy_time_lagging'],
  // reads the asset list the assets collector publishes (else it would read the list itself)
  after: ['assets'],
  async collect(ctx, signal) {
    const readAt = ctx.now().getTime();
    const list = await currentAssets(ctx, signal);
    const { newest, ahead } = await newestCopies(ctx, [...list.assets.keys()], signal);
    let lagging = 0;
    for (const [id, time] of newest) {
      const reported = list.assets.get(id)?.lastAvailableCopyTime ?? null;
      if (time !== null && (reported === null || reported < time)) lagging += 1;
    }
    return {
      samples: [{ name: 'dataprotect_assets_copy_time_lagging', labels: { target: ctx.target.name }, value: lagging }],
      publish: [[LATEST_COPY_TIMES, { readAt, newest, ahead }]],
      items: newest.size,
    };
  },
});
