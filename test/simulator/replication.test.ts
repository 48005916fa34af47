import { Agent, request } from 'undici';
import { SimulatedClock } from '../../simulator/core/clock';
import type { SimContext } from '../../simulator/core/context';
import { Faults } from '../../simulator/core/faults';
import { SeededRandom } from '../../simulator/core/random';
import { startApiServer } from '../../simulator/core/server';
import type { ApiServer } from '../../simulator/core/server';
import { Stats } from '../../simulator/core/stats';
import { createReplicationApp, replicationErrorBody } from '../../simulator/replication/app';
import { ReplicationEstate } from '../../simulator/replication/model';

const START = new Date('2026-03-01T10:00:00Z');
const USER = 'admin';
const PASSWORD = 'Simulat0r!pass';
const HOUR = 3_600_000;

function estateOf(seed: number, replicatedVms = 300, replicationClusters = 4) {
  const clock = new SimulatedClock(START);
  return { clock, estate: new ReplicationEstate(new SeededRandom(seed), { replicatedVms, replicationClusters }, clock) };
}

describe('ReplicationEstate', () => {
  it('has an unregistered and a disconnected cluster when there are at least 3', () => {
    const { estate } = estateOf(1, 100, 3);
    const [ok, disconnected, unregistered] = estate.clusters;
    expect(ok).toMatchObject({ isRegistered: true, connectionStatus: 'OK' });
    expect(disconnected?.isRegistered).toBe(true);
    expect(disconnected?.connectionStatus).not.toBe('OK');
    expect(unregistered?.isRegistered).toBe(false);
    expect(unregistered).not.toHaveProperty('address');
    expect(unregistered).not.toHaveProperty('connectionStatus');
  });

  it('has VMs in both roles, some paused, disks included and excluded, production VMs with tools version', () => {
    const { estate } = estateOf(1);
    const vms = estate.vms;
    expect(vms).toHaveLength(300);
    expect(new Set(vms.map((v) => v.role))).toEqual(new Set(['PRODUCTION', 'REPLICA']));
    expect(new Set(vms.map((v) => v.status))).toEqual(new Set(['ACTIVE', 'PAUSED']));
    const disks = vms.flatMap((v) => v.vmdks);
    expect(disks.some((d) => d.included)).toBe(true);
    expect(disks.some((d) => !d.included)).toBe(true);
    expect(disks.every((d) => Number.isInteger(d.sizeInMB) && d.sizeInMB > 0)).toBe(true);
    expect(vms.filter((v) => v.role === 'PRODUCTION').every((v) => typeof v.vmToolsVersion === 'string')).toBe(true);
    expect(vms.filter((v) => v.role === 'REPLICA').every((v) => v.vmToolsVersion === undefined)).toBe(true);
    // every VM belongs to a known group and a registered cluster
    const groupIds = new Set(estate.groups.map((g) => g.id));
    const registered = new Set(estate.clusters.filter((c) => c.isRegistered).map((c) => c.id));
    expect(vms.every((v) => groupIds.has(v.groupId) && registered.has(v.repClusterId))).toBe(true);
  });

  it('is the same for the same seed and differs for another', () => {
    expect(estateOf(4).estate.vms).toEqual(estateOf(4).estate.vms);
    expect(estateOf(4).estate.vms.map((v) => v.id)).not.toEqual(estateOf(5).estate.vms.map((v) => v.id));
  });

  it('evolves with the clock, deterministically and independently of how time is advanced', () => {
    const statuses = (e: ReplicationEstate) => e.vms.map((v) => v.status);
    const a = estateOf(7, 2000);
    const b = estateOf(7, 2000);
    const before = statuses(a.estate);
    a.clock.advance(72 * HOUR);
    for (let h = 0; h < 72; h++) b.clock.advance(HOUR);
    expect(statuses(a.estate)).toEqual(statuses(b.estate));
    expect(statuses(a.estate)).not.toEqual(before);

    const other = estateOf(8, 2000);
    other.clock.advance(72 * HOUR);
    expect(statuses(other.estate)).not.toEqual(statuses(a.estate));
  });

  it('keeps a status injected by a test (unknown values included) through evolution', () => {
    const { clock, estate } = estateOf(2);
    const vm = estate.vms[0]!;
    estate.setVmStatus(vm.id, 'DEGRADED');
    clock.advance(48 * HOUR);
    expect(estate.vms[0]!.status).toBe('DEGRADED');
  });
});

describe('replication plugin API', () => {
  let clock: SimulatedClock;
  let estate: ReplicationEstate;
  let faults: Faults;
  let server: ApiServer;
  let agent: Agent;
  const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

  beforeAll(async () => {
    ({ clock, estate } = estateOf(11, 500, 4));
    faults = new Faults();
    const ctx: SimContext = { clock, faults, random: new SeededRandom(11), username: USER, password: PASSWORD, tokenTtlSeconds: 28_800 };
    server = await startApiServer({ api: 'replication', app: createReplicationApp(estate, ctx), faults, stats: new Stats(), errorBody: replicationErrorBody });
    agent = new Agent();
  });
  afterAll(async () => {
    await server.close();
    await agent.close();
  });
  afterEach(() => faults.clear());

  async function get(path: string, authorization: string | null = basic): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }> {
    const res = await request(`${server.url}${path}`, {
      dispatcher: agent,
      headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.json() };
  }
  const rows = (body: unknown) => body as Array<Record<string, unknown>>;

  it('requires HTTP Basic with the right credentials on every request', async () => {
    for (const path of ['/api/v1/vms', '/api/v1/rep-clusters', '/api/v1/groups', `/api/v1/rep-cluster/${estate.clusters[0]!.id}`]) {
      const missing = await get(path, null);
      expect(missing.status).toBe(401);
      expect(String(missing.headers['www-authenticate'])).toMatch(/^Basic/);
      expect((await get(path, `Basic ${Buffer.from(`${USER}:wrong`).toString('base64')}`)).status).toBe(401);
      expect((await get(path, 'Bearer abc')).status).toBe(401);
      expect((await get(path)).status).toBe(200);
    }
  });

  it('lists VMs as a bare JSON array equal to the estate', async () => {
    const { status, body } = await get('/api/v1/vms');
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
    expect(body).toEqual(JSON.parse(JSON.stringify(estate.vms)));
  });

  it('answers one cluster by id, 404 for an unknown one', async () => {
    const cluster = estate.clusters[3]!;
    const { status, body } = await get(`/api/v1/rep-cluster/${cluster.id}`);
    expect(status).toBe(200);
    expect(body).toEqual(JSON.parse(JSON.stringify(cluster)));
    expect(body).not.toHaveProperty('connectionStatus'); // the unregistered one
    expect((await get('/api/v1/rep-cluster/nope')).status).toBe(404);
  });

  it('filters by one field with several values, and by several fields at once', async () => {
    const paused = rows((await get('/api/v1/vms?status=PAUSED')).body);
    expect(paused.length).toBe(estate.vms.filter((v) => v.status === 'PAUSED').length);
    expect(paused.length).toBeGreaterThan(0);
    expect(paused.every((v) => v.status === 'PAUSED')).toBe(true);

    const both = rows((await get('/api/v1/vms?status=PAUSED,ACTIVE')).body);
    expect(both).toHaveLength(estate.vms.length);

    const combined = rows((await get('/api/v1/vms?role=REPLICA&guestOsType=LINUX&status=ACTIVE')).body);
    const expected = estate.vms.filter((v) => v.role === 'REPLICA' && v.guestOsType === 'LINUX' && v.status === 'ACTIVE');
    expect(combined.map((v) => v.id)).toEqual(expected.map((v) => v.id));
    expect(combined.length).toBeGreaterThan(0);

    const registered = rows((await get('/api/v1/rep-clusters?isRegistered=false')).body);
    expect(registered.map((c) => c.id)).toEqual(estate.clusters.filter((c) => !c.isRegistered).map((c) => c.id));
  });

  it('sorts by several fields, minus meaning descending', async () => {
    const sorted = rows((await get('/api/v1/vms?sort=repClusterName,-name')).body);
    const expected = [...estate.vms].sort((a, b) => (a.repClusterName < b.repClusterName ? -1 : a.repClusterName > b.repClusterName ? 1 : a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    expect(sorted.map((v) => v.id)).toEqual(expected.map((v) => v.id));

    const groups = rows((await get('/api/v1/groups?sort=-bandwidthPriority,name')).body);
    for (let i = 1; i < groups.length; i++) {
      const [prev, cur] = [groups[i - 1]!, groups[i]!];
      const p = String(prev.bandwidthPriority);
      const c = String(cur.bandwidthPriority);
      expect(p > c || (p === c && String(prev.name) <= String(cur.name))).toBe(true);
    }
  });

  it('projects only the requested fields, combined with filter and sort', async () => {
    const { body } = await get('/api/v1/vms?role=PRODUCTION&status=ACTIVE&sort=-name&fields=id,name,status');
    const list = rows(body);
    const expected = estate.vms
      .filter((v) => v.role === 'PRODUCTION' && v.status === 'ACTIVE')
      .map((v) => ({ id: v.id, name: v.name, status: v.status }))
      .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    expect(list).toEqual(expected);
    expect(Object.keys(list[0]!).sort()).toEqual(['id', 'name', 'status']);
  });

  it('answers 400 to a filter or sort by a name the records lack, and on groups to any but the seed names', async () => {
    for (const path of ['/api/v1/vms?page=2', '/api/v1/vms?sort=-nosuch', '/api/v1/rep-clusters?size=10', '/api/v1/groups?status=ACTIVE', '/api/v1/groups?sort=enabled']) {
      const { status, body } = await get(path);
      expect({ path, status }).toEqual({ path, status: 400 });
      expect(body).toMatchObject({ status: 400, message: expect.stringMatching(/^Unknown field\(s\) in (filter|sort): /) });
    }
    const group = estate.groups[0]!;
    const named = rows((await get(`/api/v1/groups?name=${encodeURIComponent(group.name)}&sort=-bandwidthPriority,name`)).body);
    expect(named.map((g) => g.id)).toEqual(estate.groups.filter((g) => g.name === group.name).map((g) => g.id));
  });

  it('shows groups with id, name, bandwidthPriority, status and enabled', async () => {
    const groups = rows((await get('/api/v1/groups?fields=id,name,bandwidthPriority,status,enabled')).body);
    expect(groups).toHaveLength(estate.groups.length);
    for (const g of groups) {
      expect(typeof g.id).toBe('string');
      expect(typeof g.enabled).toBe('boolean');
      expect(typeof g.status).toBe('string');
    }
  });

  it('reflects test mutations: unknown VM status, cluster connection', async () => {
    const vm = estate.vms[5]!;
    estate.setVmStatus(vm.id, 'SOMETHING_NEW');
    const found = rows((await get('/api/v1/vms?status=SOMETHING_NEW')).body);
    expect(found.map((v) => v.id)).toEqual([vm.id]);
    const cluster = estate.clusters[0]!;
    estate.setClusterConnection(cluster.id, 'DISCONNECTED');
    expect((await get(`/api/v1/rep-cluster/${cluster.id}`)).body).toMatchObject({ connectionStatus: 'DISCONNECTED' });
    estate.setClusterConnection(cluster.id, undefined);
    expect((await get(`/api/v1/rep-cluster/${cluster.id}`)).body).not.toHaveProperty('connectionStatus');
    estate.setClusterConnection(cluster.id, 'OK');
    estate.setVmStatus(vm.id, 'ACTIVE');
  });

  it('answers 429 with Retry-After under load (replicationMaxConcurrent)', async () => {
    faults.replicationMaxConcurrent = 1;
    faults.add({ api: 'replication', path: '/api/v1/vms', fault: { kind: 'latency', ms: 1500 } });
    const results = await Promise.all([get('/api/v1/vms'), get('/api/v1/vms'), get('/api/v1/vms')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    const rejected = results.find((r) => r.status === 429)!;
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThan(0);
    expect(rejected.body).toMatchObject({ status: 429 });
  });
});

/** A plugin of `spelling` over `estateOf(seed, vms, clusters)`, alone, and a GET as its Basic user. */
async function startPlugin(seed: number, vms: number, clusters: number, spelling: 'seed' | 'product') {
  const { clock, estate } = estateOf(seed, vms, clusters);
  const faults = new Faults();
  const ctx: SimContext = { clock, faults, random: new SeededRandom(seed), username: USER, password: PASSWORD, tokenTtlSeconds: 28_800 };
  const app = createReplicationApp(estate, ctx, spelling);
  const server = await startApiServer({ api: 'replication', app, faults, stats: new Stats(), errorBody: replicationErrorBody });
  const agent = new Agent();
  const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  return {
    estate,
    async get(path: string): Promise<{ status: number; body: unknown }> {
      const res = await request(`${server.url}${path}`, { dispatcher: agent, headers: { accept: 'application/json', authorization: basic } });
      return { status: res.statusCode, body: await res.body.json() };
    },
    async close(): Promise<void> {
      await server.close();
      await agent.close();
    },
  };
}

describe('replication plugin API, product spelling', () => {
  let plugin: Awaited<ReturnType<typeof startPlugin>>;
  let estate: ReplicationEstate;
  const get = (path: string) => plugin.get(path);

  beforeAll(async () => {
    plugin = await startPlugin(12, 40, 3, 'product');
    estate = plugin.estate;
  });
  afterAll(() => plugin.close());

  it('serves clusters at /rp-clusters and /rp-clusters/{id}; the seed paths are 404', async () => {
    const cluster = estate.clusters[0]!;
    expect(await get('/api/v1/rp-clusters?fields=id,name')).toEqual({ status: 200, body: estate.clusters.map((c) => ({ id: c.id, name: c.name })) });
    expect(await get(`/api/v1/rp-clusters/${cluster.id}`)).toMatchObject({ status: 200, body: { id: cluster.id, name: cluster.name } });
    expect((await get('/api/v1/rep-clusters')).status).toBe(404);
    expect((await get(`/api/v1/rep-cluster/${cluster.id}`)).status).toBe(404);
  });

  it("spells VM fields the product's way and answers 400 to a fields= name it does not know", async () => {
    const vm = estate.vms[0]!;
    const { status, body } = await get(`/api/v1/vms?id=${vm.id}&fields=id,rpClusterId,rpClusterName,esxClusterName,vcId,vcName`);
    expect(status).toBe(200);
    expect(body).toEqual([{ id: vm.id, rpClusterId: vm.repClusterId, rpClusterName: vm.repClusterName, esxClusterName: vm.hvClusterName, vcId: vm.hvMgrId, vcName: vm.hvMgrName }]);
    const full = (await get(`/api/v1/vms?id=${vm.id}`)).body as Array<Record<string, unknown>>;
    expect(Object.keys(full[0]!).filter((field) => /^(repCluster|hv)/.test(field))).toEqual([]);
    const refused = await get('/api/v1/vms?fields=id,repClusterName');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, message: expect.stringContaining('repClusterName') });
  });
});

describe.each(['seed', 'product'] as const)('replication plugin API with nothing protected, %s spelling', (spelling) => {
  let plugin: Awaited<ReturnType<typeof startPlugin>>;
  const get = (path: string) => plugin.get(path);
  const other = spelling === 'seed' ? { vm: 'rpClusterName', cluster: 'rpSystemId' } : { vm: 'repClusterName', cluster: 'repSystemId' };

  // no VM and no group: the lists are empty, and the plugin still knows (only) its own field names
  beforeAll(async () => {
    plugin = await startPlugin(13, 0, 0, spelling);
  });
  afterAll(() => plugin.close());

  it('answers 400 to a fields=, filter or sort name of its model it does not know, as with records', async () => {
    const clusters = spelling === 'seed' ? '/api/v1/rep-clusters' : '/api/v1/rp-clusters';
    const own = spelling === 'seed' ? 'repClusterName' : 'rpClusterName';
    expect(await get(`/api/v1/vms?fields=id,${own},vmdks`)).toEqual({ status: 200, body: [] });
    expect(await get(`${clusters}?fields=id,name,isRegistered,connectionStatus`)).toEqual({ status: 200, body: [] });
    for (const path of [`/api/v1/vms?fields=id,${other.vm}`, '/api/v1/vms?nosuch=1', `${clusters}?fields=${other.cluster}`, '/api/v1/groups?fields=nosuch']) {
      const { status, body } = await get(path);
      expect({ path, status }).toEqual({ path, status: 400 });
      expect(body).toMatchObject({ status: 400, message: expect.stringMatching(/^Unknown field\(s\) in (fields|filter): /) });
    }
  });
});
