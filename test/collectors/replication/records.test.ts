/**
 * Replication records of shapes the simulator does not produce: cluster names repeated across replication systems (unique only
 * within one), and a disk without a size. Neither may hide a disconnected cluster or a paused VM.
 */
import { ReplicationClient } from '../../../src/clients/replication/client';
import { clustersCollector } from '../../../src/collectors/replication/clusters';
import { parseConfig, type TargetConfig } from '../../../src/config/load';
import { vmsCollector } from '../../../src/collectors/replication/vms';
import { runCollector, samplesNamed, silentLogger, valueOf } from '../../support/collect';
import { scripted } from '../../support/scripted-server';

/** Runs a replication collector against a plugin that answers `path` with `records` (seed spelling) and anything else with 404. */
async function collectFrom(collector: typeof clustersCollector | typeof vmsCollector, path: string, records: unknown[]) {
  const server = await scripted((_method, asked) =>
    asked === path ? { status: 200, body: records } : { status: 404, body: { message: 'Resource not found' } },
  );
  const target = parseConfig({
    targets: [{ name: 'rp', kind: 'replication', url: server.url, username: 'u', password: 'p', maxAttempts: 1, apiSpelling: 'seed' }],
  }).targets[0] as TargetConfig & { kind: 'replication' };
  const client = new ReplicationClient(target, { logger: silentLogger });
  try {
    return await runCollector(collector, { target, client });
  } finally {
    await client.close();
    await server.close();
  }
}

it('does not hide a disconnected cluster behind a connected one of the same name', async () => {
  const clusters = [
    { id: '1', name: 'DR', repSystemId: 'sys-a', isRegistered: true, connectionStatus: 'OK' },
    { id: '2', name: 'DR', repSystemId: 'sys-b', isRegistered: true, connectionStatus: 'ERROR' },
  ];
  const result = await collectFrom(clustersCollector, '/api/v1/rep-clusters', clusters);
  // one series for the name, connected only while every cluster of it is
  expect(samplesNamed(result, 'dataprotect_replication_cluster_connected').map((sample) => [sample.labels.rep_cluster, sample.value])).toEqual([['DR', 0]]);
});

it('reports a PAUSED VM whose second disk has no size', async () => {
  const vm = {
    id: 'vm-1', name: 'erp-01', groupName: 'cg-erp', repClusterName: 'rpa-east', role: 'PRODUCTION', status: 'PAUSED', guestOsType: 'LINUX',
    vmdks: [{ included: true, sizeInMB: 40960 }, { included: true, sizeInMB: null }],
  };
  const result = await collectFrom(vmsCollector, '/api/v1/vms', [vm]);
  expect(valueOf(result, 'dataprotect_replication_vm_status', { vm_id: 'vm-1', status: 'PAUSED' })).toBe(1);
  // the sums of its disks are unknown: no disk series rather than a wrong one
  expect(samplesNamed(result, 'dataprotect_replication_vm_disk_bytes')).toEqual([]);
});
