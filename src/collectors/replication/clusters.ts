import { defineCollector, type Sample } from '../types';

/** Replication clusters, connected = registered and connectionStatus OK; an unregistered one (no connectionStatus) reads 0, no error. */
export const clustersCollector = defineCollector({
  name: 'clusters',
  kind: 'replication',
  description: 'Replication appliance clusters and whether each is registered and connected.',
  defaultSchedule: '* * * * *',
  metrics: ['dataprotect_replication_cluster_connected'],
  async collect(ctx, signal) {
    const clusters = await ctx.client.clusters({ fields: ['name', 'isRegistered', 'connectionStatus'] }, signal);
    // A name is unique within one replication system only: clusters sharing it share a series, connected while all of them are.
    const connected = new Map<string, number>();
    for (const cluster of clusters) {
      const value = cluster.isRegistered && cluster.connectionStatus === 'OK' ? 1 : 0;
      connected.set(cluster.name, Math.min(value, connected.get(cluster.name) ?? 1));
    }
    const shared = clusters.length - connected.size;
    if (shared > 0) ctx.logger.warn({ shared }, 'replication clusters with the same name: one series for each name, 1 only while all connect');
    const samples: Sample[] = [...connected].map(([name, value]) => ({
      name: 'dataprotect_replication_cluster_connected',
      labels: { target: ctx.target.name, rep_cluster: name },
      value,
    }));
    return { samples, items: clusters.length };
  },
});
