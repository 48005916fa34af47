import { defineCollector } from '../../src/collectors/types';

/** A management collector that needs no source: one asset-size series with `value`, for tests of the endpoints around collection. */
export function constantCollector(value: number) {
  return defineCollector<'management', undefined>({
    name: 'fake',
    kind: 'management',
    description: 'test',
    defaultSchedule: '0 0 1 1 *',
    metrics: ['dataprotect_asset_size_bytes'],
    collect: async (ctx) => ({
      samples: [{ name: 'dataprotect_asset_size_bytes', labels: { target: ctx.target.name, asset_id: 'a', asset_name: 'a', asset_type: 'VM', policy: 'p' }, value }],
    }),
  });
}
