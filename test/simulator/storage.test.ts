import { Agent, request } from 'undici';
import { SimulatedClock } from '../../simulator/core/clock';
import type { SimContext } from '../../simulator/core/context';
import { Faults } from '../../simulator/core/faults';
import { SeededRandom } from '../../simulator/core/random';
import { startApiServer } from '../../simulator/core/server';
import type { ApiServer } from '../../simulator/core/server';
import { Stats } from '../../simulator/core/stats';
import { createStorageApplianceApp, createStorageCenterApp, storageErrorBody } from '../../simulator/storage/app';
import { ALERT_SEVERITIES, StorageEstate, TIERS } from '../../simulator/storage/model';

const START = new Date('2026-03-01T10:17:42Z');
const USER = 'admin';
const PASSWORD = 'Simulat0r!pass';
const HOUR = 3_600_000;

function estateOf(seed: number, storageSystems = 3) {
  const clock = new SimulatedClock(START);
  return { clock, estate: new StorageEstate(new SeededRandom(seed), { storageSystems }, clock) };
}

describe('StorageEstate', () => {
  it('generates systems with hex:hex uuids, tiers, every alert severity, mtrees and some lagging contexts', () => {
    const { estate } = estateOf(1);
    expect(estate.systems).toHaveLength(3);
    for (const s of estate.systems) {
      expect(s.id).toMatch(/^[0-9a-f]{16}:[0-9a-f]{16}$/);
      expect(s.uuid).toBe(s.id);
      expect(estate.mtrees(s.id).length).toBeGreaterThan(0);
    }
    const first = estate.systems[0]!.id;
    // and one without a severity, which the model leaves optional
    expect(new Set(estate.activeAlerts(first).map((a) => a.severity))).toEqual(new Set([...ALERT_SEVERITIES, undefined]));
    const allAlerts = estate.systems.flatMap((s) => estate.alerts(s.id));
    expect(allAlerts.some((a) => a.status === 'cleared')).toBe(true);
    expect(new Set(allAlerts.map((a) => a.class)).size).toBeGreaterThan(2);
    const nowSec = START.getTime() / 1000;
    const lags = estate.systems.flatMap((s) => estate.contexts(s.id).map((c) => nowSec - c.syncEpoch));
    expect(lags.some((lag) => lag > 3 * 3600)).toBe(true);
    expect(lags.some((lag) => lag < 3600)).toBe(true);
  });

  it('keeps tiers consistent: total = active + cloud, used + available = total, factor = logical / physical', () => {
    const { estate } = estateOf(2);
    for (const s of estate.systems) {
      const [active, cloud, total] = TIERS.map((t) => estate.newestCapacity(s.id, t));
      expect(total!.physical_capacity.used).toBe(active!.physical_capacity.used + cloud!.physical_capacity.used);
      expect(total!.physical_capacity.total).toBe(active!.physical_capacity.total + cloud!.physical_capacity.total);
      for (const sample of [active!, cloud!, total!]) {
        expect(sample.physical_capacity.used + sample.physical_capacity.available).toBe(sample.physical_capacity.total);
        expect(Number.isInteger(sample.physical_capacity.used)).toBe(true);
        if (sample.physical_capacity.used > 0) expect(sample.compression_factor).toBeCloseTo(sample.logical_capacity.used / sample.physical_capacity.used, 1);
      }
    }
    // the second system has no cloud tier
    expect(estate.newestCapacity(estate.systems[1]!.id, 'cloud').physical_capacity.total).toBe(0);
  });

  it('grows with the clock, the same way however the time was advanced', () => {
    const a = estateOf(3);
    const b = estateOf(3);
    const id = a.estate.systems[0]!.id;
    const before = a.estate.newestCapacity(id, 'active');
    a.clock.advance(10 * 24 * HOUR);
    for (let i = 0; i < 240; i++) b.clock.advance(HOUR);
    const after = a.estate.newestCapacity(id, 'active');
    expect(after).toEqual(b.estate.newestCapacity(id, 'active'));
    expect(after.collection_epoch - before.collection_epoch).toBe(240 * 3600);
    expect(after.physical_capacity.used).toBeGreaterThan(before.physical_capacity.used);
    expect(estateOf(4).estate.newestCapacity(estateOf(4).estate.systems[0]!.id, 'active')).not.toEqual(before);
  });
});

describe('storage API', () => {
  let clock: SimulatedClock;
  let estate: StorageEstate;
  let center: ApiServer;
  let appliance: ApiServer;
  let agent: Agent;
  let faults: Faults;

  beforeAll(async () => {
    ({ clock, estate } = estateOf(21));
    faults = new Faults();
    const ctx: SimContext = { clock, faults, random: new SeededRandom(21), username: USER, password: PASSWORD, tokenTtlSeconds: 1800 };
    const stats = new Stats();
    center = await startApiServer({ api: 'storage', app: createStorageCenterApp(estate, ctx), faults, stats, errorBody: storageErrorBody });
    appliance = await startApiServer({ api: 'storage', app: createStorageApplianceApp(estate, 0, ctx), faults, stats, errorBody: storageErrorBody });
    agent = new Agent();
  });
  afterAll(async () => {
    await center.close();
    await appliance.close();
    await agent.close();
  });

  interface Reply {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Record<string, unknown>;
  }
  async function call(base: string, method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Reply> {
    const res = await request(`${base}${path}`, {
      dispatcher: agent,
      method,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : {} };
  }
  async function login(base: string, prefix = '/rest/v1.0'): Promise<string> {
    const res = await call(base, 'POST', `${prefix}/auth`, {}, { username: USER, password: PASSWORD });
    expect(res.status).toBe(201);
    const token = res.headers['x-dd-auth-token'];
    expect(typeof token).toBe('string');
    return token as string;
  }
  const tokens = new Map<string, string>();
  async function get(base: string, path: string): Promise<Reply> {
    if (!tokens.has(base)) tokens.set(base, await login(base));
    return call(base, 'GET', path, { 'X-DD-AUTH-TOKEN': tokens.get(base)! });
  }
  const enc = (id: string) => encodeURIComponent(id);
  const sys = (i: number) => estate.systems[i]!.id;

  it('logs in with a token header, rejects missing or unknown tokens, and logout ends the token', async () => {
    expect((await call(center.url, 'GET', '/rest/v1.0/system')).status).toBe(401);
    expect((await call(center.url, 'GET', '/rest/v1.0/system', { 'X-DD-AUTH-TOKEN': 'made-up' })).status).toBe(401);
    expect((await call(center.url, 'POST', '/rest/v1.0/auth', {}, { username: USER, password: 'wrong' })).status).toBe(401);
    const token = await login(center.url);
    expect((await call(center.url, 'GET', '/rest/v1.0/system', { 'X-DD-AUTH-TOKEN': token })).status).toBe(200);
    expect((await call(center.url, 'DELETE', '/rest/v1.0/auth', { 'X-DD-AUTH-TOKEN': token })).status).toBe(200);
    const after = await call(center.url, 'GET', '/rest/v1.0/system', { 'X-DD-AUTH-TOKEN': token });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 401 });
  });

  it('answers 400 to a page of more than 200 items in the seed spelling too', async () => {
    expect((await get(center.url, `/rest/v1.0/store-systems/${enc(sys(0))}/alerts?size=200`)).status).toBe(200);
    const refused = await get(center.url, `/rest/v1.0/store-systems/${enc(sys(0))}/alerts?size=201`);
    expect(refused).toMatchObject({ status: 400, body: { code: 400, details: expect.stringContaining('at most 200') } });
  });

  it('tokens of one server are not valid on the other, and expire after the TTL of simulated time unused', async () => {
    const token = await login(appliance.url, '/api/v1');
    expect((await call(center.url, 'GET', '/rest/v1.0/system', { 'X-DD-AUTH-TOKEN': token })).status).toBe(401);
    expect((await call(appliance.url, 'GET', '/rest/v1.0/system', { 'X-DD-AUTH-TOKEN': token })).status).toBe(200);
    clock.advance(1801 * 1000);
    expect((await call(appliance.url, 'GET', '/rest/v1.0/system', { 'X-DD-AUTH-TOKEN': token })).status).toBe(401);
    tokens.clear();
  });

  it('answers JSON only: Accept application/xml gets 406', async () => {
    const token = await login(appliance.url);
    const xml = await request(`${appliance.url}/rest/v1.0/system`, { dispatcher: agent, headers: { accept: 'application/xml', 'X-DD-AUTH-TOKEN': token } });
    await xml.body.text();
    expect(xml.statusCode).toBe(406);
    const none = await request(`${appliance.url}/rest/v1.0/system`, { dispatcher: agent, headers: { 'X-DD-AUTH-TOKEN': token } });
    expect(none.headers['content-type']).toMatch(/^application\/json/);
    await none.body.text();
  });

  it('describes itself at /system: the appliance with its capacity, the center as a center', async () => {
    const own = await get(appliance.url, '/rest/v1.0/system');
    const s = estate.systems[0]!;
    expect(own.body).toMatchObject({ name: s.name, version: s.version, serialno: s.serialno, model: s.model, uuid: s.id });
    expect(own.body.uptime_secs).toBe(estate.uptimeSeconds(s.id));
    const details = own.body.capacity_usage_details as Array<{ tier: string; physical_capacity: unknown }>;
    expect(details.map((d) => d.tier)).toEqual(['active', 'cloud', 'total']);
    expect(details[0]!.physical_capacity).toEqual(estate.newestCapacity(s.id, 'active').physical_capacity);
    expect(own.body.physical_capacity).toEqual(estate.newestCapacity(s.id, 'total').physical_capacity);

    const mc = await get(center.url, '/rest/v1.0/system');
    expect(mc.body).toMatchObject({ model: 'DDMC', name: estate.center.name });
  });

  it('lists managed systems on the center, only itself on the appliance', async () => {
    const list = await get(center.url, '/rest/v1.0/store-systems');
    expect((list.body.system as Array<{ id: string }>).map((s) => s.id)).toEqual(estate.systems.map((s) => s.id));
    const own = await get(appliance.url, '/rest/v1.0/store-systems');
    expect((own.body.system as Array<{ id: string }>).map((s) => s.id)).toEqual([sys(0)]);
  });

  it('SYSTEM-ID 0 is an Invalid System ID on the center and the local system on an appliance', async () => {
    const invalid = await get(center.url, '/rest/v1.0/store-systems/0/alerts');
    expect(invalid.status).toBe(400);
    expect(String(invalid.body.details)).toMatch(/Invalid System ID/);
    const local = await get(appliance.url, '/rest/v1.0/store-systems/0/alerts?size=100');
    const byId = await get(appliance.url, `/rest/v1.0/store-systems/${enc(sys(0))}/alerts?size=100`);
    expect(local.status).toBe(200);
    expect(byId.body).toEqual(local.body);
    expect((local.body.paging_info as { total_entries: number }).total_entries).toBe(estate.alerts(sys(0)).length);
    expect((await get(appliance.url, `/rest/v1.0/store-systems/${enc(sys(1))}/alerts`)).status).toBe(404);
    expect((await get(center.url, '/rest/v1.0/store-systems/0123456789abcdef%3A0123456789abcdef/alerts')).status).toBe(404);
  });

  it('takes URL-encoded system ids (%3A) and raw colons alike', async () => {
    const encoded = `/rest/v1.0/store-systems/${enc(sys(2))}/mtrees`;
    expect(encoded).toContain('%3A');
    const a = await get(center.url, encoded);
    const b = await get(center.url, `/rest/v1.0/store-systems/${sys(2)}/mtrees`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect((a.body.mtree as Array<{ id: string }>).map((t) => t.id)).toEqual(estate.mtrees(sys(2)).map((t) => t.id));
  });

  it('serves newest-first capacity samples with 0-based paging_info', async () => {
    const id = sys(1);
    const newest = await get(center.url, `/rest/v2.0/store-systems/${enc(id)}/stats/capacity?tier=active&sort=-collection_epoch&page=0&size=1`);
    expect(newest.status).toBe(200);
    const total = estate.sampleEpochs().length;
    expect(newest.body.paging_info).toEqual({ current_page: 0, page_entries: 1, total_entries: total, page_size: 1 });
    expect(newest.body.stats_capacity).toEqual([expect.objectContaining(estate.newestCapacity(id, 'active'))]);

    const second = await get(center.url, `/rest/v2.0/store-systems/${enc(id)}/stats/capacity?tier=active&sort=-collection_epoch&page=1&size=5`);
    const epochs = (second.body.stats_capacity as Array<{ collection_epoch: number }>).map((s) => s.collection_epoch);
    const newestEpoch = estate.newestSampleEpoch();
    expect(epochs).toEqual([5, 6, 7, 8, 9].map((i) => newestEpoch - i * 3600));
    expect(second.body.paging_info).toEqual({ current_page: 1, page_entries: 5, total_entries: total, page_size: 5 });

    const ascending = await get(center.url, `/rest/v2.0/store-systems/${enc(id)}/stats/capacity?tier=cloud&size=2`);
    const asc = (ascending.body.stats_capacity as Array<{ collection_epoch: number; tier: string }>);
    expect(asc[0]!.collection_epoch).toBeLessThan(asc[1]!.collection_epoch);
    expect(asc.every((s) => s.tier === 'cloud')).toBe(true);

    const allTiers = await get(center.url, `/rest/v2.0/store-systems/${enc(id)}/stats/capacity?sort=-collection_epoch&size=3`);
    expect((allTiers.body.stats_capacity as Array<{ tier: string }>).map((s) => s.tier).sort()).toEqual(['active', 'cloud', 'total']);
    expect((await get(center.url, `/rest/v2.0/store-systems/${enc(id)}/stats/capacity?tier=hot`)).status).toBe(400);
    expect((await get(center.url, `/rest/v2.0/store-systems/${enc(id)}/stats/capacity?page=-1`)).status).toBe(400);
  });

  it('filters active alerts and pages through them', async () => {
    const id = sys(0);
    const expected = estate.activeAlerts(id).map((a) => a.id).sort();
    const seen: string[] = [];
    for (let page = 0; page < 20; page++) {
      const res = await get(center.url, `/rest/v1.0/store-systems/${enc(id)}/alerts?filter=${encodeURIComponent('status=active')}&page=${page}&size=3`);
      const info = res.body.paging_info as { current_page: number; page_entries: number; total_entries: number };
      expect(info.current_page).toBe(page);
      expect(info.total_entries).toBe(expected.length);
      const alerts = res.body.alert_list as Array<{ id: string; status: string; severity: string }>;
      expect(alerts.every((a) => a.status === 'active')).toBe(true);
      seen.push(...alerts.map((a) => a.id));
      if (alerts.length === 0) break;
    }
    expect(seen.sort()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(estate.alerts(id).length / 4);
    expect(expected.length).toBeLessThan(estate.alerts(id).length);

    const raised = estate.addAlert(id, { severity: 'CRITICAL', class: 'HardwareFailure', name: 'EVT-TEST', msg: 'test' });
    const after = await get(center.url, `/rest/v1.0/store-systems/${enc(id)}/alerts?filter=status=active&size=100`);
    expect((after.body.alert_list as Array<{ id: string }>).map((a) => a.id)).toContain(raised.id);
    estate.clearAlert(id, raised.id);
    const cleared = await get(center.url, `/rest/v1.0/store-systems/${enc(id)}/alerts?filter=status=active&size=100`);
    expect((cleared.body.alert_list as Array<{ id: string }>).map((a) => a.id)).not.toContain(raised.id);
  });

  it('answers the link response for incomplete paths', async () => {
    const protocols = await get(center.url, `/rest/v1.0/store-systems/${enc(sys(0))}/protocols`);
    expect(protocols.status).toBe(200);
    expect(protocols.body).toMatchObject({ details: 'success', code: 0 });
    const links = protocols.body.link as Array<{ rel: string; href: string }>;
    expect(links.map((l) => l.rel)).toEqual(['parent', 'vdisk', 'nfs', 'boost', 'cifs']);
    expect(links[2]!.href).toBe(`${center.url}/rest/v1.0/store-systems/${enc(sys(0))}/protocols/nfs`);
    const system = await get(appliance.url, '/api/v1/store-systems/0');
    expect(system.body).toMatchObject({ details: 'success', code: 0 });
    expect((system.body.link as Array<{ rel: string }>).map((l) => l.rel)).toContain('alerts');
  });

  it('serves the same resources under /rest/vX.Y and /api/vN', async () => {
    for (const resource of ['mtree-replications', 'mtrees', 'alerts?filter=status=active']) {
      const rest = await get(appliance.url, `/rest/v1.0/store-systems/0/${resource}`);
      const api = await get(appliance.url, `/api/v1/store-systems/0/${resource}`);
      expect(rest.status).toBe(200);
      expect(api.body).toEqual(rest.body);
    }
    expect((await get(appliance.url, '/api/vX/system')).status).toBe(404);
  });

  it("answers 404 to a version in the other base path's form: /rest takes vX.Y, /api takes vN (seed, Base paths)", async () => {
    const resource = `store-systems/${enc(sys(0))}/alerts?filter=status=active`;
    expect((await get(center.url, `/rest/v1.0/${resource}`)).status).toBe(200);
    expect((await get(center.url, `/api/v1/${resource}`)).status).toBe(200);
    for (const path of [`/rest/v1/${resource}`, `/api/v1.0/${resource}`, '/rest/v2/system', '/api/v2.0/system']) {
      const answer = await get(center.url, path);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body).toMatchObject({ code: 404 });
    }
  });

  it('serves mtree capacity by URL-encoded mtree path', async () => {
    const mtree = estate.mtrees(sys(0))[0]!;
    const res = await get(appliance.url, `/rest/v2.0/store-systems/0/mtrees/${enc(mtree.id)}/stats/capacity?sort=-collection_epoch&size=1`);
    expect(res.status).toBe(200);
    const [sample] = res.body.stats_capacity as Array<{ collection_epoch: number; physical_capacity: { used: number } }>;
    expect(sample!.collection_epoch).toBe(estate.newestSampleEpoch());
    expect(sample!.physical_capacity.used).toBe(estate.mtreeCapacityAt(sys(0), mtree.id, estate.newestSampleEpoch())!.physical_used);
    expect((await get(appliance.url, `/rest/v2.0/store-systems/0/mtrees/${enc('/data/col1/none')}/stats/capacity`)).status).toBe(404);
  });

  it('reports replication contexts whose lag follows the clock, and state changes', async () => {
    const id = sys(0);
    const path = `/api/v1/store-systems/${enc(id)}/mtree-replications`;
    const before = (await get(center.url, path)).body.contexts as Array<{ id: number; syncEpoch: number; state: string; mode: string }>;
    expect(before).toEqual(estate.contexts(id).map((c) => expect.objectContaining(c)));
    const lagging = estate.contexts(id).find((c) => c.id === 2)!;
    clock.advance(2 * HOUR);
    tokens.clear(); // the advance may outlive the token's TTL
    const after = (await get(center.url, path)).body.contexts as Array<{ id: number; syncEpoch: number }>;
    expect(after.find((c) => c.id === 2)!.syncEpoch).toBe(lagging.syncEpoch); // frozen: lag grew by 2 h
    expect(after.find((c) => c.id === 1)!.syncEpoch).toBe(before.find((c) => c.id === 1)!.syncEpoch + 7200); // keeps up
    estate.setContextState(id, 1, 'RECOVERING');
    const changed = (await get(center.url, path)).body.contexts as Array<{ id: number; state: string }>;
    expect(changed.find((c) => c.id === 1)!.state).toBe('RECOVERING');
  });

  it('answers 503 for an unreachable system on the center, other systems still answer', async () => {
    estate.setSystemReachable(sys(1), false);
    try {
      expect((await get(center.url, `/rest/v1.0/store-systems/${enc(sys(1))}/alerts`)).status).toBe(503);
      expect((await get(center.url, `/rest/v1.0/store-systems/${enc(sys(2))}/alerts`)).status).toBe(200);
    } finally {
      estate.setSystemReachable(sys(1), true);
    }
    expect((await get(center.url, `/rest/v1.0/store-systems/${enc(sys(1))}/alerts`)).status).toBe(200);
  });

  it('applies injected faults with its own error body', async () => {
    faults.add({ api: 'storage', path: '/stats/capacity', times: 1, fault: { kind: 'status', status: 503, retryAfterSeconds: 2 } });
    const res = await get(appliance.url, '/rest/v2.0/store-systems/0/stats/capacity?size=1');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.body).toEqual({ code: 503, details: 'Service Unavailable' });
    expect((await get(appliance.url, '/rest/v2.0/store-systems/0/stats/capacity?size=1')).status).toBe(200);
  });
});

describe('storage API, product spelling', () => {
  let estate: StorageEstate;
  let center: ApiServer;
  let agent: Agent;
  let token: string;

  beforeAll(async () => {
    let clock: SimulatedClock;
    ({ clock, estate } = estateOf(22));
    const faults = new Faults();
    const ctx: SimContext = { clock, faults, random: new SeededRandom(22), username: USER, password: PASSWORD, tokenTtlSeconds: 1800 };
    center = await startApiServer({ api: 'storage', app: createStorageCenterApp(estate, ctx, 'product'), faults, stats: new Stats(), errorBody: storageErrorBody });
    agent = new Agent();
    const login = await request(`${center.url}/rest/v1.0/auth`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USER, password: PASSWORD }),
    });
    await login.body.dump();
    token = login.headers['x-dd-auth-token'] as string;
  });
  afterAll(async () => {
    await center.close();
    await agent.close();
  });

  async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await request(`${center.url}${path}`, { dispatcher: agent, headers: { accept: 'application/json', 'x-dd-auth-token': token } });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  }
  const enc = (id: string) => encodeURIComponent(id);

  it('serves the systems collection as dd-systems; store-systems is 404', async () => {
    const list = await get('/rest/v1.0/dd-systems');
    expect((list.body.system as Array<{ id: string }>).map((s) => s.id)).toEqual(estate.systems.map((s) => s.id));
    const id = enc(estate.systems[0]!.id);
    expect((await get(`/rest/v1.0/dd-systems/${id}/alerts`)).status).toBe(200);
    expect((await get(`/api/v1/dd-systems/${id}/mtree-replications`)).status).toBe(200);
    for (const path of ['/rest/v1.0/store-systems', `/rest/v1.0/store-systems/${id}/alerts`, `/api/v1/store-systems/${id}/mtree-replications`]) {
      expect([path, (await get(path)).status]).toEqual([path, 404]);
    }
  });

  it('carries capacity only in tier_capacity_usage[], every tier in each sample, and an archive tier without physical_capacity', async () => {
    const id = estate.systems[0]!.id;
    const { status, body } = await get(`/rest/v2.0/dd-systems/${enc(id)}/stats/capacity?tier=active&sort=-collection_epoch&size=1`);
    expect(status).toBe(200);
    const epoch = estate.newestSampleEpoch();
    const figures = (tier: (typeof TIERS)[number]) => {
      const sample = estate.capacityAt(id, tier, epoch);
      return { tier, physical_capacity: sample.physical_capacity, logical_capacity: sample.logical_capacity, compression_factor: sample.compression_factor };
    };
    const archive = { tier: 'archive', logical_capacity: { total: 0, used: 0, available: 0 }, compression_factor: 0 };
    expect(body.stats_capacity).toEqual([{ collection_epoch: epoch, tier_capacity_usage: [...TIERS.map(figures), archive] }]);
  });

  it('answers 400 to a page of more than 200 items', async () => {
    const id = enc(estate.systems[0]!.id);
    expect((await get(`/rest/v1.0/dd-systems/${id}/alerts?size=200`)).status).toBe(200);
    const refused = await get(`/rest/v1.0/dd-systems/${id}/alerts?size=201`);
    expect(refused).toEqual({ status: 400, body: { code: 400, details: expect.stringContaining('at most 200') } });
  });
});
