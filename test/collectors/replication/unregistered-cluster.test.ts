/**
 * A plugin whose clusters are all unregistered: no record carries connectionStatus (the seed: "omitted for a cluster that is not
 * registered"), which the collector still asks for by name; the cluster reads not connected, in both spellings.
 */
import { startSimulator, type RunningSimulator } from '../../../simulator';
import type { TargetConfig } from '../../../src/config/load';
import type { ReplicationClient } from '../../../src/clients/replication/client';
import { clustersCollector } from '../../../src/collectors/replication/clusters';
import { clientFor, runCollector, simulatorTarget, valueOf } from '../../support/collect';

const SIZE = { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5, replicatedVms: 8, replicationClusters: 1, storageSystems: 1 };

describe.each(['seed', 'product'] as const)('clusters collector, %s spelling', (spelling) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 7, size: SIZE, startTime: new Date('2026-02-10T12:00:00Z'), apiSpelling: spelling });
  });
  afterAll(async () => sim.close());

  it('reports the plugin\'s only cluster, unregistered (no connectionStatus), as not connected instead of failing', async () => {
    const cluster = sim.estate.replication.clusters[0] as { id: string; name: string; isRegistered: boolean; address?: string };
    cluster.isRegistered = false;
    delete cluster.address;
    sim.estate.replication.setClusterConnection(cluster.id, undefined);
    const target = simulatorTarget(sim, 'replication', { maxAttempts: 1, apiSpelling: spelling });
    const client = clientFor(target as TargetConfig & { kind: 'replication' }) as ReplicationClient;
    try {
      const result = await runCollector(clustersCollector, { target, client });
      expect(valueOf(result, 'dataprotect_replication_cluster_connected', { rep_cluster: cluster.name })).toBe(0);
    } finally {
      await client.close();
    }
  });
});
