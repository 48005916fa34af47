import net from 'node:net';
import { Agent, request } from 'undici';
import { startSimulator } from '../../simulator';
import { parseCli, startupLines } from '../../simulator/cli';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { silentLogger } from '../support/collect';
import type { RunningSimulator } from '../../simulator';
import type { EstateSize } from '../../simulator/types';

const SMALL: Partial<EstateSize> = {
  assets: 20,
  auditEntries: 20,
  activitiesPerDay: 20,
  auditEntriesPerDay: 20,
  replicatedVms: 40,
  replicationClusters: 3,
  storageSystems: 2,
};
const START = new Date('2026-05-04T08:00:00Z');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const basic = (sim: RunningSimulator) => `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;

describe('startSimulator over HTTP', () => {
  let sim: RunningSimulator;
  let agent: Agent;
  let appliancePort: number;

  beforeAll(async () => {
    appliancePort = await freePort();
    sim = await startSimulator({ seed: 5, size: SMALL, startTime: START, ports: { storageAppliance: appliancePort } });
    agent = new Agent();
  });
  afterAll(async () => {
    await sim.close();
    await agent.close();
  });

  it('starts four servers on loopback, with the requested port and the default credentials', () => {
    const urls = Object.values(sim.urls);
    expect(urls).toHaveLength(4);
    expect(new Set(urls).size).toBe(4);
    for (const url of urls) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.urls.storageAppliance).toBe(`http://127.0.0.1:${appliancePort}`);
    expect(sim.username).toBe('admin');
    expect(sim.password).toBe('Simulat0r!pass');
    expect(sim.caCertPem).toBeUndefined();
    expect(sim.clock.now().toISOString()).toBe(START.toISOString());
  });

  it('serves each API from the estate, counting requests per API', async () => {
    sim.stats.reset();
    const vms = await request(`${sim.urls.replication}/api/v1/vms`, { dispatcher: agent, headers: { authorization: basic(sim) } });
    expect(((await vms.body.json()) as unknown[]).length).toBe(SMALL.replicatedVms);
    expect(sim.estate.replication.vms).toHaveLength(SMALL.replicatedVms!);

    const login = await request(`${sim.urls.storageCenter}/rest/v1.0/auth`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: sim.username, password: sim.password }),
    });
    await login.body.text();
    const token = login.headers['x-dd-auth-token'] as string;
    const systems = await request(`${sim.urls.storageCenter}/rest/v1.0/store-systems`, { dispatcher: agent, headers: { 'x-dd-auth-token': token } });
    const listed = ((await systems.body.json()) as { system: Array<{ id: string }> }).system;
    expect(listed.map((s) => s.id)).toEqual(sim.estate.storage.systems.map((s) => s.id));

    const appliance = await request(`${sim.urls.storageAppliance}/rest/v1.0/system`, { dispatcher: agent });
    await appliance.body.text();
    expect(appliance.statusCode).toBe(401); // the appliance has its own tokens

    const management = await request(`${sim.urls.management}/api/v2/assets`, { dispatcher: agent });
    await management.body.text();
    expect(management.statusCode).toBe(401);

    expect(sim.stats.total('replication')).toBe(1);
    expect(sim.stats.total('storage')).toBe(3);
    expect(sim.stats.total('management')).toBe(1);
    expect(sim.stats.bytes('replication')).toBeGreaterThan(1000);
  });

  it('prints base URLs that paste into url: as they are, and the exporter collects through them', async () => {
    const lines = startupLines(sim, 5, 1);
    const printed = lines.flatMap((line) => {
      const match = /kind: (\w+)\s+url: (\S+)/.exec(line);
      return match ? [{ kind: match[1] as string, url: match[2] as string }] : [];
    });
    expect(printed.map((entry) => entry.kind)).toEqual(['management', 'replication', 'storage', 'storage']);
    const config = parseConfig({
      collection: { rpoByPolicy: {} },
      targets: printed.map((entry, i) => ({ name: `t${i}`, kind: entry.kind, url: entry.url, username: sim.username, password: sim.password, maxAttempts: 1 })),
    });
    const runtime = new ExporterRuntime(config, { logger: silentLogger });
    try {
      const results = await runtime.runOnce();
      expect(results.length).toBeGreaterThan(4);
      expect(results.every((result) => result === 'success')).toBe(true);
    } finally {
      await runtime.stop();
    }
  });

  it('shares one fault injector across the servers', async () => {
    sim.faults.add({ api: 'replication', times: 1, fault: { kind: 'status', status: 500 } });
    const res = await request(`${sim.urls.replication}/api/v1/groups`, { dispatcher: agent, headers: { authorization: basic(sim) } });
    expect(res.statusCode).toBe(500);
    await res.body.text();
    sim.faults.clear();
  });
});

describe('startSimulator', () => {
  it('gives the same estate for the same seed and another for another seed', async () => {
    const a = await startSimulator({ seed: 9, size: SMALL, startTime: START });
    const b = await startSimulator({ seed: 9, size: SMALL, startTime: START });
    const c = await startSimulator({ seed: 10, size: SMALL, startTime: START });
    try {
      expect(b.estate.replication.vms).toEqual(a.estate.replication.vms);
      expect(b.estate.storage.systems).toEqual(a.estate.storage.systems);
      for (const sim of [a, b]) sim.clock.advance(30 * 3_600_000);
      expect(b.estate.replication.vms).toEqual(a.estate.replication.vms);
      const id = a.estate.storage.systems[0]!.id;
      expect(b.estate.storage.newestCapacity(id, 'active')).toEqual(a.estate.storage.newestCapacity(id, 'active'));
      expect(c.estate.replication.vms.map((v) => v.id)).not.toEqual(a.estate.replication.vms.map((v) => v.id));
      expect(c.estate.storage.systems.map((s) => s.id)).not.toEqual(a.estate.storage.systems.map((s) => s.id));
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('serves HTTPS on all four servers with one certificate that clients can trust as CA', async () => {
    const sim = await startSimulator({ seed: 1, size: SMALL, https: true });
    const trusting = new Agent({ connect: { ca: sim.caCertPem } });
    const plain = new Agent();
    try {
      expect(sim.caCertPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
      for (const url of Object.values(sim.urls)) {
        expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        const res = await request(`${url}/api/v1/nothing-here`, { dispatcher: trusting });
        await res.body.text();
        expect(res.statusCode).toBeGreaterThanOrEqual(400); // answered over TLS: auth or not found
        await expect(request(`${url}/api/v1/nothing-here`, { dispatcher: plain })).rejects.toThrow(/self-signed|certificate/i);
      }
    } finally {
      await sim.close();
      await trusting.close();
      await plain.close();
    }
  });

  it('closes promptly while a request hangs', async () => {
    const sim = await startSimulator({ seed: 1, size: SMALL });
    const agent = new Agent();
    try {
      sim.faults.add({ api: 'replication', fault: { kind: 'hang' } });
      const hanging = request(`${sim.urls.replication}/api/v1/vms`, { dispatcher: agent, headers: { authorization: basic(sim) } }).then(
        () => 'answered',
        () => 'ended',
      );
      while (sim.stats.count('replication', '/api/v1/vms') === 0) await new Promise((resolve) => setImmediate(resolve));
      // Resolves, and ends the hanging request: without destroying sockets, close() would wait
      // forever for the hang (the client's own headers timeout is 300 s, beyond the test's time limit).
      await sim.close();
      expect(await hanging).toBe('ended');
    } finally {
      await sim.close();
      await agent.close();
    }
  });

  it('refuses an estate without a storage system (the appliance server needs one)', async () => {
    await expect(startSimulator({ size: { storageSystems: 0 } })).rejects.toThrow(/storageSystems/);
  });
});

describe('simulator CLI flags', () => {
  it('maps every size knob, seed, https, ports and speed to options', () => {
    const { options, speed, caOut } = parseCli([
      '--seed', '3', '--https', '--speed', '60', '--ca-out', '/tmp/ca.pem', '--start-time', '2026-01-02T03:04:05Z',
      '--assets', '1000', '--copies-per-asset', '4', '--assets-without-copy-share', '0.1', '--activities-per-day', '900',
      '--audit-entries', '10', '--audit-entries-per-day', '11', '--protection-policies', '6', '--replicated-vms', '5000',
      '--replication-clusters', '5', '--storage-systems', '8', '--replication-port', '18080', '--api-spelling', 'product',
    ]);
    expect(options).toMatchObject({ seed: 3, https: true, apiSpelling: 'product', startTime: new Date('2026-01-02T03:04:05Z'), ports: { replication: 18080 } });
    expect(options.size).toEqual({
      assets: 1000, copiesPerAsset: 4, assetsWithoutCopyShare: 0.1, activitiesPerDay: 900, auditEntries: 10,
      auditEntriesPerDay: 11, protectionPolicies: 6, replicatedVms: 5000, replicationClusters: 5, storageSystems: 8,
    });
    expect(speed).toBe(60);
    expect(caOut).toBe('/tmp/ca.pem');
  });

  it('rejects bad values and unknown flags', () => {
    expect(() => parseCli(['--assets', 'many'])).toThrow(/--assets/);
    expect(() => parseCli(['--start-time', 'yesterday'])).toThrow(/--start-time/);
    expect(() => parseCli(['--no-such-flag'])).toThrow();
    expect(() => parseCli(['--api-spelling', 'vendor'])).toThrow(/--api-spelling needs seed or product/);
    expect(parseCli([]).options).toMatchObject({ https: false, size: {} });
    expect(parseCli([]).options.strictRestValidation).toBeUndefined(); // the simulator's default: strict
    expect(parseCli(['--lenient-rest', '--user-role-username', 'viewer', '--management-type-names', 'product']).options).toMatchObject({
      strictRestValidation: false,
      userRoleUsername: 'viewer',
      managementTypeNames: 'product',
    });
    expect(() => parseCli(['--management-type-names', 'vendor'])).toThrow(/--management-type-names/);
  });
});
