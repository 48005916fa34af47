import { defineCollector, type Sample } from '../types';
import { collectAll } from '../../clients/management/paging';
import { Tally } from '../shared/tally';
import { uniqueBy } from '../shared/unique';

/**
 * Each inventory source's last discovery result and time. A source without a result (application hosts, storage systems, groups
 * often have none) gets no success series: it has not failed. Sources sharing a name get their id appended to `source`.
 */
export const inventorySourcesCollector = defineCollector<'management'>({
  name: 'inventory-sources',
  kind: 'management',
  description: 'Discovery result and time of each inventory source',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_inventory_source_discovery_success', 'dataprotect_inventory_source_last_discovery_timestamp_seconds'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const { unique: sources } = uniqueBy(await collectAll(ctx.client.inventorySources({}, signal)), (source) => source.id);
    const nameCount = new Tally<[string]>();
    for (const source of sources) nameCount.add([source.name]);
    const samples: Sample[] = [];
    for (const source of sources) {
      const label = nameCount.get([source.name]) > 1 ? `${source.name} (${source.id})` : source.name;
      const labels = { target, source: label };
      const result = source.lastDiscoveryResult?.status;
      if (result) samples.push({ name: 'dataprotect_inventory_source_discovery_success', labels, value: result === 'OK' ? 1 : 0 });
      if (source.lastDiscovered != null) {
        const value = source.lastDiscovered / 1000;
        samples.push({ name: 'dataprotect_inventory_source_last_discovery_timestamp_seconds', labels, value });
      }
    }
    return { samples, items: sources.length };
  },
});
