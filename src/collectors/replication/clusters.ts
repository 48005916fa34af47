import { defineCollector, type Sample } from '../types';
import { uniqueBy } from '../shared/unique';

/** Replication clusters, connected = registered and connectionStatus OK; an unregistered one (no connectionStatus) reads 0, no error. */
export const clustersCollector = defineCollector({
  name: 'clusters',
  kind: 'replication',
  description: 'Replication appliance clusters and whether each is registered and connected.',
  defaultSchedule: '* * * * *',
  metrics: ['dataprotect_replication_cluster_connected'],
  async collect(ctx, signal) {
    const clusters = await ctx.client.clusters({ fields: ['name', 'isRegistered', 'connectionStatus'] }, signal);
    const { unique, duplicates } = uniqueBy(clusters, (cluster) => cluster.name);
    if (duplicates.length > 0) ctx.logger.warn({ duplicates }, 'replication clusters with the same name: keeping the first of each');
    const samples: Sample[] = unique.map((cluster) => ({
      name: 'dataprotect_replication_cluster_connected',
      labels: { target: ctx.target.name, rep_cluster: cluster.name },
      value: cluster.isRegistered && cluster.connectionStatus === 'OK' ? 1 : 0,
    }));
    return { samples, items: clusters.length };
  },
});
