import { startSimulator, type RunningSimulator } from '../../simulator';
import { ReplicationClient } from '../../src/clients/replication/client';
import { ApiError } from '../../src/clients/errors';
import type { RequestObserver } from '../../src/clients/http';
import type { TargetConfig } from '../../src/config/load';
import { silentLogger, simulatorTarget } from '../support/collect';
import { recordSleeps } from '../support/sleeps';

const SMALL = { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5, replicatedVms: 60, replicationClusters: 3, storageSystems: 1 };

type RequestEvent = Parameters<RequestObserver['onRequest']>[0];

const clientFor = (target: TargetConfig, observer?: RequestObserver) =>
  new ReplicationClient(target, { logger: silentLogger, ...(observer ? { observer } : {}) });

describe('ReplicationClient against the simulated plugin', () => {
  let sim: RunningSimulator;
  let client: ReplicationClient;
  let events: RequestEvent[];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, size: SMALL, startTime: new Date('2026-04-01T06:00:00Z') });
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    events = [];
    client = clientFor(simulatorTarget(sim, 'replication'), { onRequest: (event) => events.push(event) });
    sim.faults.clear();
    sim.stats.reset();
  });
  afterEach(async () => {
    await client.close();
  });

  it('reads every cluster with Basic auth, tolerating the unregistered one without connectionStatus', async () => {
    const clusters = await client.clusters({ fields: ['id', 'name', 'isRegistered', 'connectionStatus'] });
    const truth = sim.estate.replication.clusters;
    expect(clusters).toEqual(truth.map((c) => ({ id: c.id, name: c.name, isRegistered: c.isRegistered, connectionStatus: c.connectionStatus })));
    expect(clusters.some((c) => !c.isRegistered && c.connectionStatus === undefined)).toBe(true);
  });

  it('asks only for the named fields, so the answer is much smaller than the full records', async () => {
    const vms = await client.vms({ fields: ['id', 'status'] });
    expect(vms).toHaveLength(sim.estate.replication.vms.length);
    expect(Object.keys(vms[0] ?? {}).sort()).toEqual(['id', 'status']);
    const fullBytes = Buffer.byteLength(JSON.stringify(sim.estate.replication.vms));
    expect(sim.stats.bytes('replication')).toBeLessThan(fullBytes / 5);
  });

  it('reads the consistency groups', async () => {
    const groups = await client.groups({ fields: ['name'] });
    expect(groups.map((g) => g.name).sort()).toEqual(sim.estate.replication.groups.map((g) => g.name).sort());
    expect(events.map((e) => e.endpoint)).toEqual(['/api/v1/groups']);
  });

  it('honours Retry-After on 429 and succeeds, recording each attempt by path template', async () => {
    sim.faults.add({ api: 'replication', path: '/api/v1/vms', times: 1, fault: { kind: 'status', status: 429, retryAfterSeconds: 1 } });
    const sleeps = recordSleeps();
    const vms = await client.vms({ fields: ['id'] }).finally(() => sleeps.restore());
    // The first backoff step alone is under 500 ms: a wait of a full second is Retry-After's.
    expect(sleeps.delays).toEqual([1000]);
    expect(vms).toHaveLength(sim.estate.replication.vms.length);
    expect(events.map((e) => [e.endpoint, e.code])).toEqual([
      ['/api/v1/vms', '429'],
      ['/api/v1/vms', '200'],
    ]);
  });

  it('gets through a 429 storm of an overloaded plugin', async () => {
    sim.faults.replicationMaxConcurrent = 1;
    sim.faults.add({ api: 'replication', path: '/api/v1/groups', times: 1, fault: { kind: 'latency', ms: 300 } });
    const target = simulatorTarget(sim, 'replication', { maxConcurrency: 4, maxAttempts: 6 });
    const busy = clientFor(target, { onRequest: (event) => events.push(event) });
    try {
      const [groups, clusters, vms] = await Promise.all([
        busy.groups({ fields: ['name'] }),
        busy.clusters({ fields: ['name'] }),
        busy.vms({ fields: ['id'] }),
      ]);
      expect(groups).toHaveLength(sim.estate.replication.groups.length);
      expect(clusters).toHaveLength(sim.estate.replication.clusters.length);
      expect(vms).toHaveLength(sim.estate.replication.vms.length);
      expect(events.filter((e) => e.code === '429').length).toBeGreaterThan(0);
    } finally {
      await busy.close();
    }
  });

  it('gives up with a status error when 429 outlasts the attempts', async () => {
    sim.faults.add({ api: 'replication', path: '/api/v1/rep-clusters', fault: { kind: 'status', status: 429, retryAfterSeconds: 0 } });
    const limited = clientFor(simulatorTarget(sim, 'replication', { maxAttempts: 2 }));
    try {
      const error = await limited.clusters({ fields: ['name'] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ kind: 'status', status: 429, endpoint: '/api/v1/rep-clusters' });
      expect(sim.stats.count('replication', '/api/v1/rep-clusters')).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('reports refused credentials as an auth error without the password in the message', async () => {
    const wrong = clientFor(simulatorTarget(sim, 'replication', { password: 'not-the-password' }));
    try {
      const error = (await wrong.clusters({ fields: ['name'] }).catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ kind: 'auth', status: 401 });
      expect(error.unreachable).toBe(true);
      expect(error.message).not.toContain('not-the-password');
      expect(error.message).not.toContain(sim.password);
    } finally {
      await wrong.close();
    }
  });

  it('turns a malformed body into a parse error', async () => {
    sim.faults.add({ api: 'replication', path: '/api/v1/vms', times: 1, fault: { kind: 'malformed' } });
    await expect(client.vms({ fields: ['id'] })).rejects.toMatchObject({ kind: 'parse', endpoint: '/api/v1/vms' });
  });

  it('accepts unknown status values as data', async () => {
    const vm = sim.estate.replication.vms[3]!;
    sim.estate.replication.setVmStatus(vm.id, 'MIGRATING');
    try {
      const vms = await client.vms({ fields: ['id', 'status'] });
      expect(vms.filter((v) => v.id === vm.id)).toEqual([{ id: vm.id, status: 'MIGRATING' }]);
    } finally {
      sim.estate.replication.setVmStatus(vm.id, 'ACTIVE');
    }
  });
});
