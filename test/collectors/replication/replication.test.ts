import { startSimulator, type RunningSimulator } from '../../../simulator';
import pino from 'pino';
import { ReplicationClient } from '../../../src/clients/replication/client';
import type { TargetConfig } from '../../../src/config/load';
import { clustersCollector } from '../../../src/collectors/replication/clusters';
import { groupsCollector } from '../../../src/collectors/replication/groups';
import { vmsCollector } from '../../../src/collectors/replication/vms';
import { COLLECTORS } from '../../../src/collectors/registry';
import { metricFamily } from '../../../src/metrics/catalog';
import { clientFor, expectWellFormed, runCollector, samplesNamed, simulatorTarget, valueOf } from '../../support/collect';

const SIZE = { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5, replicatedVms: 80, replicationClusters: 4, storageSystems: 1 };
const MIB = 1024 * 1024;

describe.each(['seed', 'product'] as const)('replication collectors against the simulated plugin, %s spelling', (spelling) => {
  const otherClusters = spelling === 'seed' ? /^\/api\/v1\/rp-clusters/ : /^\/api\/v1\/rep-clusters?(\/|$)/;
  let sim: RunningSimulator;
  let target: TargetConfig;
  let client: ReplicationClient;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 7, size: SIZE, startTime: new Date('2026-02-10T12:00:00Z'), apiSpelling: spelling });
    target = simulatorTarget(sim, 'replication', { maxAttempts: 2 });
    client = clientFor(target as TargetConfig & { kind: 'replication' });
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });
  beforeEach(() => {
    sim.faults.clear();
  });

  const run = <S>(definition: Parameters<typeof runCollector<'replication', S>>[0]) => runCollector(definition, { target, client });


  it('lists the three collectors with the metrics they emit', () => {
    expect(COLLECTORS.replication.map((c) => c.name)).toEqual(['clusters', 'groups', 'vms']);
    for (const collector of COLLECTORS.replication) for (const name of collector.metrics) expect(metricFamily(name).name).toBe(name);
  });

  it('reports connected, disconnected and unregistered clusters', async () => {
    const result = await run(clustersCollector);
    await expectWellFormed(result, target.name);
    const truth = sim.estate.replication.clusters;
    expect(truth.some((c) => !c.isRegistered)).toBe(true);
    expect(truth.some((c) => c.isRegistered && c.connectionStatus !== 'OK')).toBe(true);
    expect(samplesNamed(result, 'dataprotect_replication_cluster_connected')).toHaveLength(truth.length);
    for (const cluster of truth) {
      const expected = cluster.isRegistered && cluster.connectionStatus === 'OK' ? 1 : 0;
      expect(valueOf(result, 'dataprotect_replication_cluster_connected', { rep_cluster: cluster.name })).toBe(expected);
    }
  });

  it('follows a cluster losing its connection', async () => {
    const cluster = sim.estate.replication.clusters[0]!;
    sim.estate.replication.setClusterConnection(cluster.id, 'ERROR');
    try {
      expect(valueOf(await run(clustersCollector), 'dataprotect_replication_cluster_connected', { rep_cluster: cluster.name })).toBe(0);
    } finally {
      sim.estate.replication.setClusterConnection(cluster.id, 'OK');
    }
    expect(valueOf(await run(clustersCollector), 'dataprotect_replication_cluster_connected', { rep_cluster: cluster.name })).toBe(1);
  });

  it('reports one info series per consistency group', async () => {
    const result = await run(groupsCollector);
    await expectWellFormed(result, target.name);
    const names = samplesNamed(result, 'dataprotect_replication_group_info').map((s) => s.labels.group);
    expect(names.sort()).toEqual(sim.estate.replication.groups.map((g) => g.name).sort());
  });

  it('reports every VM: info, status state set, disk bytes, and counts that equal the truth', async () => {
    const result = await run(vmsCollector);
    await expectWellFormed(result, target.name);
    const vms = sim.estate.replication.vms;
    expect(vms.some((v) => v.status === 'PAUSED')).toBe(true);
    expect(samplesNamed(result, 'dataprotect_replication_vm_info')).toHaveLength(vms.length);
    for (const vm of vms) {
      const where = { vm_id: vm.id, group: vm.groupName, rep_cluster: vm.repClusterName, role: vm.role };
      expect(valueOf(result, 'dataprotect_replication_vm_info', { ...where, vm_name: vm.name, guest_os: vm.guestOsType })).toBe(1);
      expect(valueOf(result, 'dataprotect_replication_vm_status', { ...where, status: 'ACTIVE' })).toBe(vm.status === 'ACTIVE' ? 1 : 0);
      expect(valueOf(result, 'dataprotect_replication_vm_status', { ...where, status: 'PAUSED' })).toBe(vm.status === 'PAUSED' ? 1 : 0);
      const mb = (included: boolean) => vm.vmdks.filter((d) => d.included === included).reduce((sum, d) => sum + d.sizeInMB, 0);
      expect(valueOf(result, 'dataprotect_replication_vm_disk_bytes', { vm_id: vm.id, included: 'true' })).toBe(mb(true) * MIB);
      expect(valueOf(result, 'dataprotect_replication_vm_disk_bytes', { vm_id: vm.id, included: 'false' })).toBe(mb(false) * MIB);
    }
    for (const cluster of new Set(vms.map((v) => v.repClusterName))) {
      for (const role of ['PRODUCTION', 'REPLICA']) {
        for (const status of ['ACTIVE', 'PAUSED']) {
          const expected = vms.filter((v) => v.repClusterName === cluster && v.role === role && v.status === status).length;
          expect(valueOf(result, 'dataprotect_replication_vms', { rep_cluster: cluster, role, status })).toBe(expected);
        }
      }
    }
    const counted = samplesNamed(result, 'dataprotect_replication_vms').reduce((sum, s) => sum + s.value, 0);
    expect(counted).toBe(vms.length);
  });

  it('follows VMs pausing as simulated time passes', async () => {
    const pausedBefore = sim.estate.replication.vms.filter((v) => v.status === 'PAUSED').map((v) => v.id);
    sim.clock.advance(7 * 24 * 3_600_000);
    const pausedAfter = sim.estate.replication.vms.filter((v) => v.status === 'PAUSED').map((v) => v.id);
    expect(pausedAfter).not.toEqual(pausedBefore);
    const result = await run(vmsCollector);
    const reportedPaused = samplesNamed(result, 'dataprotect_replication_vm_status')
      .filter((s) => s.labels.status === 'PAUSED' && s.value === 1)
      .map((s) => s.labels.vm_id);
    expect(reportedPaused.sort()).toEqual(pausedAfter.sort());
  });

  it('gives an unknown status its own series, and drops a VM that disappears', async () => {
    const [odd, gone] = sim.estate.replication.vms;
    sim.estate.replication.setVmStatus(odd!.id, 'MIGRATING');
    sim.estate.replication.removeVm(gone!.id);
    const result = await run(vmsCollector);
    const statuses = samplesNamed(result, 'dataprotect_replication_vm_status').filter((s) => s.labels.vm_id === odd!.id);
    expect(statuses.map((s) => [s.labels.status, s.value]).sort()).toEqual([
      ['ACTIVE', 0],
      ['MIGRATING', 1],
      ['PAUSED', 0],
    ]);
    expect(valueOf(result, 'dataprotect_replication_vms', { rep_cluster: odd!.repClusterName, role: odd!.role, status: 'MIGRATING' })).toBe(1);
    expect(result.samples.some((s) => s.labels.vm_id === gone!.id)).toBe(false);
  });

  it('fails the run on a malformed answer instead of reporting partial numbers', async () => {
    sim.faults.add({ api: 'replication', path: '/api/v1/vms', times: 1, fault: { kind: 'malformed' } });
    await expect(run(vmsCollector)).rejects.toMatchObject({ kind: 'parse' });
  });

  it('rides out a 429 with Retry-After', async () => {
    sim.faults.add({ api: 'replication', path: /^\/api\/v1\/(rep|rp)-clusters$/, times: 1, fault: { kind: 'status', status: 429, retryAfterSeconds: 0 } });
    const result = await run(clustersCollector);
    expect(samplesNamed(result, 'dataprotect_replication_cluster_connected')).toHaveLength(sim.estate.replication.clusters.length);
  });
  describe('spelling', () => {
    const fresh = (overrides: Record<string, unknown> = {}) => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
      const spelled = simulatorTarget(sim, 'replication', { maxAttempts: 1, ...overrides });
      return { lines, on: { target: spelled, client: new ReplicationClient(spelled, { logger }) } };
    };

    it('finds the spelling at first contact (a VM list first), remembers it and logs it once', async () => {
      const { lines, on } = fresh();
      try {
        sim.stats.reset();
        for (let round = 0; round < 2; round++) {
          for (const collector of [vmsCollector, clustersCollector, groupsCollector]) await runCollector(collector as never, on);
        }
        expect(on.client.spelling.known).toBe(spelling);
        // The seed spelling is tried first: a product plugin sees one probe of it, a seed plugin none of the other.
        expect(sim.stats.count('replication', otherClusters)).toBe(spelling === 'product' ? 1 : 0);
        const found = lines.map((line) => JSON.parse(line) as { msg: string; spelling?: string }).filter((entry) => entry.spelling !== undefined);
        expect(found.map((entry) => entry.msg)).toEqual([`replication API spelling detected: ${spelling}`]);
      } finally {
        await on.client.close();
      }
    });

    it('asks only the configured spelling, and fails with the plugin\'s answer when it is the wrong one', async () => {
      const right = fresh({ apiSpelling: spelling }).on;
      const wrong = fresh({ apiSpelling: spelling === 'seed' ? 'product' : 'seed' }).on;
      try {
        sim.stats.reset();
        const result = await runCollector(vmsCollector, right);
        expect(samplesNamed(result, 'dataprotect_replication_vm_info')).toHaveLength(sim.estate.replication.vms.length);
        await runCollector(clustersCollector, right);
        expect(sim.stats.count('replication', otherClusters)).toBe(0);
        // a product plugin refuses the seed's field names (400), a seed plugin knows no /rp-clusters (404)
        await expect(runCollector(spelling === 'product' ? vmsCollector : clustersCollector, wrong)).rejects.toMatchObject({
          kind: 'status',
          status: spelling === 'product' ? 400 : 404,
        });
      } finally {
        await Promise.all([right.client.close(), wrong.client.close()]);
      }
    });
  });
});
