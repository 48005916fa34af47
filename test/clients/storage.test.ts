import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { StorageClient, systemPath, type StorageSystemRef } from '../../src/clients/storage/client';
import type { ApiError } from '../../src/clients/errors';
import type { RequestObserver } from '../../src/clients/http';
import type { TargetConfig } from '../../src/config/load';
import { silentLogger, simulatorTarget } from '../support/collect';

const SMALL = { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5, replicatedVms: 5, replicationClusters: 1, storageSystems: 3 };
const START = new Date('2026-04-01T06:30:00Z');
const TOKEN_TTL_SECONDS = 600;

type RequestEvent = Parameters<RequestObserver['onRequest']>[0];

const clientFor = (target: TargetConfig, observer?: RequestObserver) =>
  new StorageClient(target, { logger: silentLogger, ...(observer ? { observer } : {}) });

describe('StorageClient against the simulated management center and appliance', () => {
  let sim: RunningSimulator;
  let clients: StorageClient[];
  let events: RequestEvent[];

  /** a storage client on the center (default) or the stand-alone appliance, closed after the test */
  const storageClient = (overrides: Record<string, unknown> = {}): StorageClient => {
    const client = clientFor(simulatorTarget(sim, 'storage', { maxAttempts: 1, ...overrides }), { onRequest: (e) => events.push(e) });
    clients.push(client);
    return client;
  };
  const applianceClient = (overrides: Record<string, unknown> = {}) => storageClient({ url: sim.urls.storageAppliance, ...overrides });
  const logins = () => sim.stats.count('storage', '/rest/v1.0/auth', 'POST');
  const systemIds = () => sim.estate.storage.systems.map((s) => s.id);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, size: SMALL, startTime: START, tokenTtlSeconds: TOKEN_TTL_SECONDS });
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    clients = [];
    events = [];
    sim.faults.clear();
    sim.stats.reset();
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  describe('session', () => {
    it('shares one login among concurrent requests and logs out on close', async () => {
      const client = storageClient();
      const { systems } = await client.discover();
      await Promise.all(systems.flatMap((s) => [client.activeAlerts(s), client.replicationContexts(s), client.latestCapacity(s, 'active')]));
      expect(logins()).toBe(1);
      await client.close();
      expect(sim.stats.count('storage', '/rest/v1.0/auth', 'DELETE')).toBe(1);
      expect(events.filter((e) => e.method === 'DELETE').map((e) => [e.endpoint, e.code])).toEqual([['/rest/v1.0/auth', '200']]);
    });

    it('logs in again when the token expired and carries on', async () => {
      const client = storageClient();
      const { systems } = await client.discover();
      sim.clock.advance((TOKEN_TTL_SECONDS + 60) * 1000);
      const alerts = await client.activeAlerts(systems[0]!);
      expect(alerts).toHaveLength(sim.estate.storage.activeAlerts(systems[0]!.id).length);
      expect(logins()).toBe(2);
      expect(events.filter((e) => e.code === '401')).toHaveLength(1);
    });

    it('retries a 401 once after a fresh login, and fails with auth when the fresh token is refused too', async () => {
      const client = storageClient();
      const { systems } = await client.discover();
      const system = systems[0]!;
      sim.faults.add({ api: 'storage', path: '/alerts', times: 1, fault: { kind: 'status', status: 401 } });
      await expect(client.activeAlerts(system)).resolves.toBeDefined();
      expect(logins()).toBe(2);

      sim.faults.add({ api: 'storage', path: '/mtree-replications', fault: { kind: 'status', status: 401 } });
      const error = (await client.replicationContexts(system).catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ kind: 'auth', status: 401, endpoint: '/api/v1/store-systems/{id}/mtree-replications' });
      expect(logins()).toBe(3);
    });

    it('reports a refused login as auth, without the password', async () => {
      const client = storageClient({ password: 'wrong-password' });
      const error = (await client.discover().catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ kind: 'auth', status: 401, endpoint: '/rest/v1.0/auth' });
      expect(error.unreachable).toBe(true);
      expect(error.message).not.toContain('wrong-password');
    });
  });

  describe('modes', () => {
    it('discovers a management center and never sends SYSTEM-ID 0 to it', async () => {
      const client = storageClient();
      const discovery = await client.discover();
      expect(discovery.mode).toBe('center');
      expect(discovery.systems.map((s) => s.id)).toEqual(systemIds());
      for (const system of discovery.systems) expect(system.pathId).toBe(encodeURIComponent(system.id));
      await Promise.all(discovery.systems.map((s) => client.activeAlerts(s)));
      expect(sim.stats.count('storage', /\/store-systems\/0(\/|$)/)).toBe(0);
      expect(sim.stats.count('storage', /\/store-systems\/[0-9a-f]{16}%3A[0-9a-f]{16}\/alerts$/)).toBe(3);
    });

    it('discovers a stand-alone appliance (which lists only itself) and addresses it as SYSTEM-ID 0', async () => {
      const client = applianceClient();
      const discovery = await client.discover();
      const self = sim.estate.storage.systems[0]!;
      expect(discovery).toEqual({
        mode: 'appliance',
        systems: [{ id: self.id, pathId: '0', name: self.name, model: self.model, version: self.version }],
      });
      await client.activeAlerts(discovery.systems[0]!);
      expect(sim.stats.count('storage', '/rest/v1.0/store-systems/0/alerts')).toBe(1);
    });

    it('follows the configured mode: appliance skips the system list, center uses it', async () => {
      const appliance = applianceClient({ storageMode: 'appliance' });
      expect((await appliance.discover()).mode).toBe('appliance');
      expect(sim.stats.count('storage', '/rest/v1.0/store-systems')).toBe(0);
      const center = storageClient({ storageMode: 'center' });
      expect((await center.discover()).systems).toHaveLength(3);
      expect(sim.stats.count('storage', '/rest/v1.0/system')).toBe(1);
    });

    it('reuses a discovery for concurrent callers', async () => {
      const client = storageClient();
      const [a, b] = await Promise.all([client.discover(), client.discover()]);
      expect(a).toBe(b);
      expect(sim.stats.count('storage', '/rest/v1.0/store-systems')).toBe(1);
    });
  });

  describe('resources', () => {
    let center: StorageClient;
    let systems: StorageSystemRef[];
    beforeEach(async () => {
      center = storageClient();
      systems = (await center.discover()).systems;
    });

    it('reads the newest capacity sample per tier at /rest/v2.0, with the path template as endpoint', async () => {
      const system = systems[0]!;
      for (const tier of ['active', 'cloud', 'total'] as const) {
        const truth = sim.estate.storage.newestCapacity(system.id, tier);
        const sample = await center.latestCapacity(system, tier);
        expect(sample).toEqual({
          collection_epoch: truth.collection_epoch,
          physical_capacity: truth.physical_capacity,
          logical_capacity: truth.logical_capacity,
          compression_factor: truth.compression_factor,
        });
      }
      expect(new Set(events.map((e) => e.endpoint))).toContain('/rest/v2.0/store-systems/{id}/stats/capacity');
      expect(events.every((e) => !e.endpoint.includes('%3A'))).toBe(true);
    });

    it('pages through alerts (0-based) and keeps only active ones', async () => {
      const system = systems[0]!;
      const pageSized = storageClient({ pageSize: 2 });
      const truth = sim.estate.storage.activeAlerts(system.id);
      expect(truth.length).toBeGreaterThan(4);
      const alerts = await pageSized.activeAlerts(system);
      expect(alerts.map((a) => a.id).sort()).toEqual(truth.map((a) => a.id).sort());
      expect(sim.stats.count('storage', /\/alerts$/)).toBe(Math.ceil(truth.length / 2));
    });

    it('reads replication contexts at the /api/v1 path form', async () => {
      const system = systems[1]!;
      const contexts = await center.replicationContexts(system);
      expect(contexts.map((c) => [c.id, c.state, c.syncEpoch])).toEqual(
        sim.estate.storage.contexts(system.id).map((c) => [String(c.id), c.state, c.syncEpoch]),
      );
      expect(sim.stats.count('storage', /^\/api\/v1\/store-systems\/.*\/mtree-replications$/)).toBe(1);
    });

    it('reports a link response where data was expected as a protocol error naming the path', async () => {
      const resource = systemPath('/rest/v1.0', systems[0]!.pathId, 'protocols', 'seed');
      const error = (await center.list(resource, {}, 'protocol', z.object({ name: z.string() })).catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ kind: 'protocol', endpoint: '/rest/v1.0/store-systems/{id}/protocols' });
      expect(error.message).toContain(`/rest/v1.0/store-systems/${systems[0]!.pathId}/protocols returned a link response`);
      expect(error.message).toContain('nfs');
    });

    it('turns a malformed body into a parse error and a 503 of one system into a status error', async () => {
      sim.faults.add({ api: 'storage', path: '/alerts', times: 1, fault: { kind: 'malformed' } });
      await expect(center.activeAlerts(systems[0]!)).rejects.toMatchObject({ kind: 'parse' });
      sim.estate.storage.setSystemReachable(systems[2]!.id, false);
      try {
        const error = (await center.activeAlerts(systems[2]!).catch((e: unknown) => e)) as ApiError;
        expect(error).toMatchObject({ kind: 'status', status: 503 });
        expect(error.unreachable).toBe(true);
        await expect(center.activeAlerts(systems[1]!)).resolves.toBeDefined();
      } finally {
        sim.estate.storage.setSystemReachable(systems[2]!.id, true);
      }
    });
  });
});

describe('StorageClient over HTTPS', () => {
  let sim: RunningSimulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, https: true, size: SMALL, startTime: START });
    dir = mkdtempSync(join(tmpdir(), 'storage-tls-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const discoverWith = async (tls: Record<string, unknown>) => {
    const target = simulatorTarget(sim, 'storage', { tls, maxAttempts: 1 });
    delete target.tls.ca; // only what the configuration gives (the helper adds the simulator's CA)
    const client = clientFor(target);
    try {
      return await client.discover();
    } finally {
      await client.close();
    }
  };

  it('trusts the simulator certificate given by caFile', async () => {
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, sim.caCertPem ?? '');
    // Loaded the way the configuration loader loads it.
    const target = simulatorTarget(sim, 'storage', { tls: { caFile }, maxAttempts: 1 });
    expect(target.tls.ca).toBe(sim.caCertPem);
    const client = clientFor(target);
    try {
      expect((await client.discover()).systems).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('connects with insecureSkipVerify and refuses an unknown certificate otherwise', async () => {
    await expect(discoverWith({ insecureSkipVerify: true })).resolves.toMatchObject({ mode: 'center' });
    await expect(discoverWith({})).rejects.toMatchObject({ kind: 'network' });
  });
});
