/**
 * The simulated management service over real HTTP on loopback: sessions,
 * errors, both paging modes, filters, copies and latest copies, the derived
 * lists, and the estate moving with the clock, each checked against the
 * estate's truth.
 */
import { SimulatedClock } from '../../simulator/core/clock';
import type { SimContext } from '../../simulator/core/context';
import { Faults } from '../../simulator/core/faults';
import { SeededRandom } from '../../simulator/core/random';
import { startApiServer, type ApiServer } from '../../simulator/core/server';
import { Stats } from '../../simulator/core/stats';
import { createManagementApp, createManagementEstate, managementErrorBody, type ManagementEstate } from '../../simulator/management';
import { DEFAULT_ESTATE_SIZE } from '../../simulator/types';

const START = new Date('2026-11-20T10:30:00Z');
const USER = 'admin';
const PASSWORD = 'Simulat0r!pass';
const TTL = 3600;

let server: ApiServer;
let estate: ManagementEstate;
let clock: SimulatedClock;
let faults: Faults;
let token: string;

beforeAll(async () => {
  clock = new SimulatedClock(START);
  faults = new Faults();
  const random = new SeededRandom(7);
  estate = createManagementEstate(random, { ...DEFAULT_ESTATE_SIZE, assets: 120, copiesPerAsset: 5, activitiesPerDay: 2400, auditEntries: 500, auditEntriesPerDay: 240 }, clock);
  const ctx: SimContext = { clock, faults, random, username: USER, password: PASSWORD, tokenTtlSeconds: TTL, userRoleUsername: 'monitor' };
  server = await startApiServer({ api: 'management', app: createManagementApp(estate, ctx), faults, stats: new Stats(), errorBody: managementErrorBody });
  token = await login();
});

afterAll(async () => {
  await server.close();
});

afterEach(() => faults.clear());

interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function call(path: string, options: { token?: string | null; method?: string; body?: string } = {}): Promise<Answer> {
  const auth = options.token === undefined ? token : options.token;
  const res = await fetch(server.url + path, {
    method: options.method ?? 'GET',
    headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function login(username = USER, password = PASSWORD): Promise<string> {
  const answer = await call('/api/v2/login', { token: null, method: 'POST', body: JSON.stringify({ username, password }) });
  expect(answer.status).toBe(200);
  return answer.body.access_token as string;
}

function q(params: Record<string, string | number>): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
}

/** all items of a serial query, with the tokens and page sizes seen */
async function serial(path: string, params: Record<string, string | number>): Promise<{ items: { id: string }[]; pages: number[]; tokens: string[] }> {
  const items: { id: string }[] = [];
  const pages: number[] = [];
  const tokens: string[] = [];
  let answer = await call(`${path}?${q({ ...params, queryState: 'BEGIN' })}`);
  for (let guard = 0; guard < 10_000; guard++) {
    expect(answer.status).toBe(200);
    items.push(...answer.body.content);
    pages.push(answer.body.content.length);
    const state = answer.body.page.queryState as string;
    tokens.push(state);
    if (state === 'END') return { items, pages, tokens };
    answer = await call(`${path}?${q({ queryState: state, ...(params.pageSize ? { pageSize: params.pageSize } : {}) })}`);
  }
  throw new Error('serial paging did not end');
}

function expectErrorBody(body: unknown, status: number, path: string): void {
  expect(body).toEqual({ code: status, reason: expect.any(String), remediation: expect.any(String), timestamp: expect.any(Number), path, extendedInfo: null });
  expect(Math.abs((body as { timestamp: number }).timestamp - Date.now())).toBeLessThan(60_000);
}

describe('sessions', () => {
  it('login answers a bearer token with the configured lifetime', async () => {
    const answer = await call('/api/v2/login', { token: null, method: 'POST', body: JSON.stringify({ username: USER, password: PASSWORD }) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      expires_in: TTL,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      scope: expect.any(String),
      refresh_token: expect.any(String),
    });
  });

  it('bad credentials give 401 with the error body; a body without them 400', async () => {
    const bad = await call('/api/v2/login', { token: null, method: 'POST', body: JSON.stringify({ username: USER, password: 'wrong' }) });
    expect(bad.status).toBe(401);
    expectErrorBody(bad.body, 401, '/api/v2/login');
    expect(JSON.stringify(bad.body)).not.toContain('wrong');
    expect((await call('/api/v2/login', { token: null, method: 'POST', body: JSON.stringify({ username: USER }) })).status).toBe(400);
    expect((await call('/api/v2/login', { token: null, method: 'POST', body: '{"username":' })).status).toBe(400);
  });

  it('a login body too large or in a charset it cannot read is a 400 (the seed: excessive size, bad syntax), never 413 or 415', async () => {
    const huge = await call('/api/v2/login', { token: null, method: 'POST', body: JSON.stringify({ username: USER, password: 'x'.repeat(70_000) }) });
    expect(huge.status).toBe(400);
    expectErrorBody(huge.body, 400, '/api/v2/login');
    const res = await fetch(`${server.url}/api/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=latin9' },
      body: JSON.stringify({ username: USER, password: PASSWORD }),
    });
    expect(res.status).toBe(400);
    expectErrorBody(await res.json(), 400, '/api/v2/login');
  });

  it('a missing or invalid token gives 401 naming the token and saying to log in again, without echoing it', async () => {
    const missing = await call('/api/v2/assets', { token: null });
    expect(missing.status).toBe(401);
    expectErrorBody(missing.body, 401, '/api/v2/assets');
    expect(missing.body.reason).toMatch(/token/i);
    expect(missing.body.remediation).toMatch(/log in again/i);
    const forged = `${token.slice(0, -4)}AAAA`;
    const invalid = await call('/api/v2/assets', { token: forged });
    expect(invalid.status).toBe(401);
    expect(invalid.body.reason).toMatch(/token/i);
    expect(JSON.stringify(invalid.body)).not.toContain(forged);
  });

  it('tokens expire by the simulated clock', async () => {
    const shortLived = await login();
    clock.advance((TTL - 1) * 1000);
    expect((await call('/api/v2/protection-policies', { token: shortLived })).status).toBe(200);
    clock.advance(1000);
    const expired = await call('/api/v2/protection-policies', { token: shortLived });
    expect(expired.status).toBe(401);
    expect(expired.body.reason).toMatch(/expired/);
    token = await login();
  });

  it('logout invalidates the token', async () => {
    const session = await login();
    expect((await call('/api/v2/logout', { token: session, method: 'POST' })).status).toBe(204);
    expect((await call('/api/v2/assets', { token: session })).status).toBe(401);
    expect((await call('/api/v2/assets')).status).toBe(200);
  });

  it('faults.tokenExpiresAfterRequests: the request after the limit gets 401, a new login starts over', async () => {
    faults.tokenExpiresAfterRequests = 3;
    const session = await login();
    for (let i = 0; i < 3; i++) expect((await call('/api/v2/storage-systems', { token: session })).status).toBe(200);
    expect((await call('/api/v2/storage-systems', { token: session })).status).toBe(401);
    // expired for good, even once the knob is cleared
    faults.tokenExpiresAfterRequests = undefined;
    expect((await call('/api/v2/storage-systems', { token: session })).status).toBe(401);
    faults.tokenExpiresAfterRequests = 3;
    const next = await login();
    expect((await call('/api/v2/storage-systems', { token: next })).status).toBe(200);
    token = await login();
  });
});

describe('errors', () => {
  it('unknown paths and ids give 404, wrong methods 405, with the error body', async () => {
    const unknownPath = await call('/api/v2/no-such-thing');
    expect(unknownPath.status).toBe(404);
    expectErrorBody(unknownPath.body, 404, '/api/v2/no-such-thing');
    expect(unknownPath.body.reason).toContain('/api/v2/no-such-thing');
    for (const path of ['/api/v2/assets/nope', '/api/v2/assets/nope/copies', '/api/v2/copies/nope', '/api/v2/activities/nope', '/api/v2/protection-policies/nope']) {
      const answer = await call(path);
      expect([path, answer.status]).toEqual([path, 404]);
      expectErrorBody(answer.body, 404, path);
    }
    const wrongMethod = await call('/api/v2/assets', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expectErrorBody(wrongMethod.body, 405, '/api/v2/assets');
    expect(wrongMethod.body.reason).toMatch(/DELETE.*\/api\/v2\/assets/);
    expect((await call('/api/v2/login', { token: null })).status).toBe(405);
  });

  it('with strict REST validation a resource read by id takes no query parameter either: 400, as on the lists', async () => {
    const asset = estate.assets().find((a) => estate.copies(a.id).length > 0)!;
    const copy = estate.copies(asset.id)[0]!;
    const activity = estate.activities()[0]!;
    const policy = estate.policies()[0]!;
    const paths = [`/api/v2/assets/${asset.id}`, `/api/v2/copies/${copy.id}`, `/api/v2/activities/${activity.id}`, `/api/v2/protection-policies/${policy.id}`];
    for (const path of paths) {
      expect([path, (await call(path)).status]).toEqual([path, 200]);
      for (const query of ['expand=all', 'filter=name%20eq%20%22x%22']) {
        const refused = await call(`${path}?${query}`);
        expect([path, query, refused.status]).toEqual([path, query, 400]);
        expectErrorBody(refused.body, 400, path);
        expect(refused.body.reason).toMatch(/Unknown query parameter/);
      }
    }
    const loginWithQuery = await call('/api/v2/login?remember=true', { token: null, method: 'POST', body: JSON.stringify({ username: USER, password: PASSWORD }) });
    expect(loginWithQuery.status).toBe(400);
    const own = await login();
    expect((await call('/api/v2/logout?all=true', { token: own, method: 'POST' })).status).toBe(400);
    expect((await call('/api/v2/logout', { token: own, method: 'POST' })).status).toBe(204);
  });

  it('injected status faults carry the service error body', async () => {
    faults.add({ api: 'management', path: '/api/v2/alerts', fault: { kind: 'status', status: 503, retryAfterSeconds: 2 }, times: 1 });
    const answer = await call('/api/v2/alerts');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('2');
    expectErrorBody(answer.body, 503, '/api/v2/alerts');
    expect((await call('/api/v2/alerts')).status).toBe(200);
  });
});

describe('random paging', () => {
  it('pages cover the whole list in order, with consistent totals', async () => {
    const truth = estate.assets().map((a) => a.id);
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const answer = await call(`/api/v2/assets?${q({ page, pageSize: 25 })}`);
      expect(answer.status).toBe(200);
      expect(answer.body.page).toEqual({ size: 25, number: page, totalPages: Math.ceil(truth.length / 25), totalElements: truth.length });
      if (answer.body.content.length === 0) break;
      seen.push(...answer.body.content.map((a: { id: string }) => a.id));
    }
    expect(seen).toEqual(truth);
  });

  it('defaults to page 1 of 100 and rejects bad page parameters', async () => {
    const answer = await call('/api/v2/assets');
    expect(answer.body.page).toMatchObject({ size: 100, number: 1, totalElements: estate.assets().length });
    expect(answer.body.content).toHaveLength(100);
    for (const bad of ['pageSize=0', 'pageSize=10001', 'pageSize=ten', 'page=0', 'page=-1', 'filter=a&filter=b']) {
      const rejected = await call(`/api/v2/assets?${bad}`);
      expect([bad, rejected.status]).toEqual([bad, 400]);
      expectErrorBody(rejected.body, 400, '/api/v2/assets');
    }
    expect((await call('/api/v2/assets?pageSize=10000')).status).toBe(200);
  });

  it('lists that also page serially refuse random pages past the 10,000th result', async () => {
    expect((await call('/api/v2/activities?page=10&pageSize=1000')).status).toBe(200);
    const past = await call('/api/v2/activities?page=11&pageSize=1000');
    expect(past.status).toBe(400);
    expect(past.body.remediation).toMatch(/serial/);
  });

  it('a filter narrows the totals', async () => {
    const truth = estate.assets().filter((a) => !a.deleted && a.protectionStatus === 'PROTECTED');
    const answer = await call(`/api/v2/assets?${q({ filter: 'deleted eq false and protectionStatus eq "PROTECTED"', pageSize: 1000 })}`);
    expect(answer.body.page.totalElements).toBe(truth.length);
    expect(answer.body.content.map((a: { id: string }) => a.id)).toEqual(truth.map((a) => a.id));
  });
});

describe('serial paging', () => {
  it('returns every item exactly once; the END page still has content', async () => {
    const { items, pages, tokens } = await serial('/api/v2/assets', { pageSize: 7 });
    expect(items.map((a) => a.id)).toEqual(estate.assets().map((a) => a.id));
    expect(pages.at(-1)).toBeGreaterThan(0);
    expect(tokens.filter((t) => t === 'END')).toHaveLength(1);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('answers page {size, queryState} and binds the filter to the token', async () => {
    const truth = estate.assets().filter((a) => a.deleted === false && a.type === 'HV_VIRTUAL_MACHINE');
    const first = await call(`/api/v2/assets?${q({ queryState: 'BEGIN', pageSize: 5, filter: 'deleted eq false and type eq HV_VIRTUAL_MACHINE' })}`);
    expect(first.body.page).toEqual({ size: 5, queryState: expect.any(String) });
    const rest = [];
    let state = first.body.page.queryState as string;
    while (state !== 'END') {
      // only the token: the filter is not sent again
      const next = await call(`/api/v2/assets?${q({ queryState: state })}`);
      rest.push(...next.body.content);
      state = next.body.page.queryState;
    }
    expect([...first.body.content, ...rest].map((a) => a.id)).toEqual(truth.map((a) => a.id));
  });

  it('a page that ends exactly at the last match says END; an empty result is one END page', async () => {
    const matching = estate.assets().filter((a) => a.type === 'HV_VIRTUAL_MACHINE').length;
    const exact = await serial('/api/v2/assets', { pageSize: matching, filter: 'type eq "HV_VIRTUAL_MACHINE"' });
    expect(exact.pages).toEqual([matching]);
    expect(exact.tokens).toEqual(['END']);
    const none = await call(`/api/v2/assets?${q({ queryState: 'BEGIN', filter: 'name eq "no such asset"' })}`);
    expect(none.body).toEqual({ content: [], page: { size: 100, queryState: 'END' } });
  });

  it('a reused, unknown or END token, or another list’s token, gives 400', async () => {
    const first = await call('/api/v2/assets?queryState=BEGIN&pageSize=3');
    const state = first.body.page.queryState as string;
    expect((await call(`/api/v2/alerts?queryState=${state}`)).status).toBe(400);
    expect((await call(`/api/v2/assets?queryState=${state}`)).status).toBe(200);
    const reused = await call(`/api/v2/assets?queryState=${state}`);
    expect(reused.status).toBe(400);
    expectErrorBody(reused.body, 400, '/api/v2/assets');
    expect((await call('/api/v2/assets?queryState=made-up')).status).toBe(400);
    expect((await call('/api/v2/assets?queryState=END')).status).toBe(400);
  });

  it('refuses random paging mixed into a serial query, and a continuation that names its query again', async () => {
    expect((await call('/api/v2/assets?queryState=BEGIN&pageSize=3&page=2')).status).toBe(400);
    const state = (await call('/api/v2/assets?queryState=BEGIN&pageSize=3')).body.page.queryState as string;
    const extras: Array<Record<string, string | number>> = [{ page: 2 }, { filter: 'deleted eq false' }, { orderby: 'name DESC' }];
    for (const extra of extras) {
      const refused = await call(`/api/v2/assets?${q({ queryState: state, pageSize: 3, ...extra })}`);
      expect({ extra, status: refused.status }).toEqual({ extra, status: 400 });
    }
    expect((await call(`/api/v2/assets?${q({ queryState: state, pageSize: 3 })}`)).status).toBe(200); // the token was not spent
  });

  it('audit logs page serially only, filtered on changedTime, newest entries included as the clock moves', async () => {
    expect((await call('/api/v2/audit-logs')).status).toBe(400);
    const since = new Date(START.getTime() - 24 * 3_600_000);
    const { items } = await serial('/api/v2/audit-logs', { pageSize: 50, filter: `changedTime ge "${since.toISOString()}"` });
    expect(items).toEqual(estate.auditEntries({ since }));
    expect(items.length).toBeGreaterThan(40);
    const auditTypes = new Set(estate.auditEntries().map((e) => e.auditType));
    expect(auditTypes.size).toBe(13);
  });

  it('activities page serially under a class and time filter, as collectors ask', async () => {
    const since = new Date(START.getTime() - 6 * 3_600_000);
    const filter = `classType in ("JOB","JOB_GROUP") and startTime ge "${since.toISOString()}"`;
    const { items } = await serial('/api/v2/activities', { pageSize: 40, filter });
    const truth = estate.activities().filter((a) => (a.classType === 'JOB' || a.classType === 'JOB_GROUP') && a.startTime !== null && Date.parse(a.startTime) >= since.getTime());
    expect(items.map((a) => a.id)).toEqual(truth.map((a) => a.id));
    expect(truth.length).toBeGreaterThan(20);
  });

  it('a time filter on startTime still finds an activity that waited long in the queue', async () => {
    const now = clock.now().getTime();
    const waited = estate.addActivity({ category: 'RESTORE', createTime: new Date(now - 30 * 3_600_000), state: 'QUEUED' });
    estate.setActivityState(waited.id, 'RUNNING');
    const early = estate.addActivity({ category: 'DISCOVER', createTime: new Date(now - 20 * 3_600_000), startTime: new Date(now - 60_000), endTime: new Date(now) });
    const filter = `startTime ge "${new Date(now - 120_000).toISOString()}" and classType eq JOB`;
    const { items } = await serial('/api/v2/activities', { pageSize: 50, filter });
    expect(items.map((a) => a.id)).toEqual(expect.arrayContaining([waited.id, early.id]));
    const random = await call(`/api/v2/activities?${q({ filter: `endTime le "${new Date(now).toISOString()}" and endTime ge "${new Date(now).toISOString()}"`, pageSize: 1000 })}`);
    expect(random.body.content.map((a: { id: string }) => a.id)).toContain(early.id);
    const truth = estate.activities().filter((a) => a.startTime !== null && Date.parse(a.startTime) >= now - 120_000 && a.classType === 'JOB');
    expect(items.map((a) => a.id)).toEqual(truth.map((a) => a.id));
  });

  it('alerts page both ways; policies only randomly', async () => {
    const { items } = await serial('/api/v2/alerts', { pageSize: 4, filter: 'acknowledgement.acknowledgeState eq UNACKNOWLEDGED' });
    expect(items).toEqual(estate.alerts().filter((a) => a.acknowledgement.acknowledgeState === 'UNACKNOWLEDGED'));
    expect((await call('/api/v2/alerts?pageSize=1000')).body.page.totalElements).toBe(estate.alerts().length);
    expect((await call('/api/v2/protection-policies?queryState=BEGIN')).status).toBe(400);
  });
});

describe('filters over HTTP', () => {
  it('finds assets by names with quotes, backslashes, spaces and unicode', async () => {
    const awkward = estate.assets().filter((a) => /["\\ ]|[^\x20-\x7e]/.test(a.name));
    expect(awkward.length).toBeGreaterThanOrEqual(5);
    for (const asset of awkward) {
      const literal = `"${asset.name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
      const answer = await call(`/api/v2/assets?${q({ filter: `name eq ${literal}` })}`);
      expect(answer.body.content.map((a: { name: string }) => a.name)).toEqual(estate.assets().filter((a) => a.name === asset.name).map((a) => a.name));
    }
  });

  it('null, dotted fields, lk and not', async () => {
    const count = async (filter: string): Promise<number> => (await call(`/api/v2/assets?${q({ filter, pageSize: 1000 })}`)).body.page.totalElements;
    const assets = estate.assets();
    expect(await count('lastAvailableCopyTime eq null')).toBe(assets.filter((a) => a.lastAvailableCopyTime === null).length);
    expect(await count('lastAvailableCopyTime ne null')).toBe(assets.filter((a) => a.lastAvailableCopyTime !== null).length);
    const policy = estate.policies()[0] as { id: string; name: string };
    expect(await count(`_embedded.protectionPolicy.id eq "${policy.id}"`)).toBe(assets.filter((a) => a._embedded.protectionPolicy?.id === policy.id).length);
    expect(await count(`protectionPolicy.name eq "${policy.name}"`)).toBe(assets.filter((a) => a._embedded.protectionPolicy?.name === policy.name).length);
    expect(await count('name lk "%-web-%"')).toBe(assets.filter((a) => a.name.toLowerCase().includes('-web-')).length);
    expect(await count('not type eq HV_VIRTUAL_MACHINE and not deleted eq true')).toBe(assets.filter((a) => !(a.type === 'HV_VIRTUAL_MACHINE' || a.deleted)).length);
    const activities = estate.activities();
    const failed = await call(`/api/v2/activities?${q({ filter: 'result.status eq "FAILED"', pageSize: 1000 })}`);
    expect(failed.body.page.totalElements).toBe(activities.filter((a) => a.result.status === 'FAILED').length);
  });

  it('id in (...) picks exactly the named items, in list order, under the rest of the filter', async () => {
    const all = estate.activities();
    const named = [all[40], all[3], all[900], all[3]].map((a) => (a as { id: string }).id);
    const answer = await call(`/api/v2/activities?${q({ filter: `id in (${[...named, 'no-such-id'].map((id) => `"${id}"`).join(', ')})`, pageSize: 10 })}`);
    expect(answer.body.content.map((a: { id: string }) => a.id)).toEqual([all[3], all[40], all[900]].map((a) => (a as { id: string }).id));
    expect(answer.body.page.totalElements).toBe(3);
    const completed = await serial('/api/v2/activities', { pageSize: 2, filter: `id in (${named.map((id) => `"${id}"`).join(',')}) and state eq "COMPLETED"` });
    expect(completed.items.map((a) => a.id)).toEqual([all[3], all[40], all[900]].filter((a) => a?.state === 'COMPLETED').map((a) => (a as { id: string }).id));
    const asset = estate.assets()[17] as { id: string };
    expect((await call(`/api/v2/assets?${q({ filter: `id eq "${asset.id}"` })}`)).body.content).toEqual([asset]);
  });

  it('a syntax error or an unknown field is a 400 naming the problem', async () => {
    const syntax = await call(`/api/v2/assets?${q({ filter: 'name eq "unterminated' })}`);
    expect(syntax.status).toBe(400);
    expectErrorBody(syntax.body, 400, '/api/v2/assets');
    expect(syntax.body.reason).toMatch(/Invalid filter: unterminated string/);
    const unknown = await call(`/api/v2/activities?${q({ filter: 'colour eq "red"' })}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.reason).toMatch(/unknown field "colour"/);
    expect((await call(`/api/v2/activities?${q({ orderby: 'colour DESC' })}`)).status).toBe(400);
  });

  it('orderby createTime DESC serves newest first', async () => {
    const answer = await call(`/api/v2/activities?${q({ orderby: 'createTime DESC', pageSize: 50 })}`);
    const times = answer.body.content.map((a: { createTime: string }) => Date.parse(a.createTime));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times[0]).toBe(Math.max(...estate.activities().map((a) => Date.parse(a.createTime))));
    const byUpdate = await call(`/api/v2/activities?${q({ orderby: 'updateTime DESC', pageSize: 20, filter: 'classType eq JOB' })}`);
    const updates = byUpdate.body.content.map((a: { updateTime: string }) => Date.parse(a.updateTime));
    expect(updates).toEqual([...updates].sort((a, b) => b - a));
  });
});

describe('copies', () => {
  const withCopies = (): string => (estate.assets().find((a) => estate.copies(a.id).length >= 4) as { id: string }).id;

  it('lists an asset’s copies newest first, filterable, with the seed’s shape', async () => {
    const id = withCopies();
    const truth = estate.copies(id);
    const answer = await call(`/api/v2/assets/${id}/copies?pageSize=1000`);
    expect(answer.body.page.totalElements).toBe(truth.length);
    expect(answer.body.content).toEqual([...truth].reverse());
    // size and location are optional in the model: a few copies leave them out
    const copy = answer.body.content.find((c: { size?: number; location?: string }) => c.size !== undefined && c.location !== undefined);
    expect(copy).toMatchObject({ id: expect.any(String), createTime: expect.any(String), storageSystemId: expect.any(String), size: expect.any(Number), copyType: expect.any(String), location: expect.stringMatching(/^(LOCAL|CLOUD|LOCAL_RECALLED|STORAGEARRAY)$/), details: { arraySubType: expect.any(String) } });
    const local = await call(`/api/v2/assets/${id}/copies?${q({ filter: 'location in (LOCAL, LOCAL_RECALLED) and replicatedCopy eq false' })}`);
    // the filter reads where a copy is, shown or not
    const listedLocal = truth.filter((c) => (c.location === 'LOCAL' || c.location === 'LOCAL_RECALLED') && !c.replicatedCopy).length;
    expect(local.body.page.totalElements).toBeGreaterThanOrEqual(listedLocal);
    expect(local.body.page.totalElements).toBeLessThanOrEqual(listedLocal + truth.filter((c) => c.location === undefined).length);
    expect((await call(`/api/v2/copies/${copy.id}`)).body).toEqual(copy);
  });

  it('latest-copies needs an assetId filter and answers the newest copy per asset, lagging assets included', async () => {
    for (const bad of ['', `?${q({ filter: 'location eq LOCAL' })}`, `?${q({ filter: 'assetId eq' })}`]) {
      const answer = await call(`/api/v2/latest-copies${bad}`);
      expect([bad, answer.status]).toEqual([bad, 400]);
      expectErrorBody(answer.body, 400, '/api/v2/latest-copies');
    }
    const assets = estate.assets();
    const lagging = assets.filter((a) => a.lastAvailableCopyTime === null && estate.copies(a.id).length > 0);
    expect(lagging.length).toBeGreaterThan(0);
    const ids = [...lagging.map((a) => a.id), ...assets.slice(0, 30).map((a) => a.id), 'no-such-asset'];
    const named = `assetId in (${ids.map((id) => `"${id}"`).join(',')})`;
    // strict REST validation: only filter is documented
    const paged = await call(`/api/v2/latest-copies?${q({ filter: named, pageSize: 1000 })}`);
    expect(paged.status).toBe(400);
    expectErrorBody(paged.body, 400, '/api/v2/latest-copies');
    const answer = await call(`/api/v2/latest-copies?${q({ filter: `${named} and not state in ("DELETED","SOFT_DELETED","DELETING","DELETE_FAILED")` })}`);
    expect(answer.status).toBe(200);
    const expected = [...new Set(ids)].map((id) => estate.latestCopy(id)).filter((c) => c !== undefined);
    expect(answer.body.content).toEqual(expected);
    expect(answer.body.page.totalElements).toBe(expected.length);
    // without the state term, a copy in a deletion state can be the newest one listed
    const unfiltered = await call(`/api/v2/latest-copies?${q({ filter: `assetId in (${assets.slice(0, 100).map((a) => `"${a.id}"`).join(',')})` })}`);
    expect(unfiltered.body.content.filter((c: { state: string | null }) => c.state !== null).length).toBeGreaterThan(0);
    const stale = assets.find((a) => {
      const latest = estate.latestCopy(a.id);
      return latest && a.lastAvailableCopyTime !== null && Date.parse(a.lastAvailableCopyTime) < Date.parse(latest.createTime);
    });
    expect(stale).toBeDefined();
  });

  it('copy-metrics agree with the copies, per stage', async () => {
    const answer = await call('/api/v2/copy-metrics?pageSize=1000');
    const live = estate.assets().filter((a) => !a.deleted);
    expect(answer.body.page.totalElements).toBe(live.length);
    for (const metrics of answer.body.content.slice(0, 40)) {
      const copies = estate.copies(metrics.assetId);
      expect(metrics.totalNumbers).toBe(copies.length);
      const counted = metrics.stageCopyMetrics.reduce((sum: number, s: { copyCount: number }) => sum + s.copyCount, 0);
      expect(counted).toBe(copies.length);
      if (copies.length > 0) {
        const newest = Math.max(...metrics.stageCopyMetrics.map((s: { latestCopyTime: string }) => Date.parse(s.latestCopyTime)));
        expect(newest).toBe(Math.max(...copies.map((c) => Date.parse(c.createTime))));
      }
    }
    const stageTypes = new Set(answer.body.content.flatMap((m: { stageCopyMetrics: { stageType: string }[] }) => m.stageCopyMetrics.map((s) => s.stageType)));
    expect([...stageTypes].sort()).toEqual(['CLOUD_TIER', 'PROTECTION', 'REPLICATION']);
  });
});

describe('the other lists', () => {
  it('policies, compliance, inventory sources, storage systems page randomly and match the truth', async () => {
    const policies = await call('/api/v2/protection-policies');
    expect(policies.body.content).toEqual(estate.policies());
    expect(policies.body.content.map((p: { type: string }) => p.type)).toContain('EXCLUDED');
    const one = estate.policies()[0] as { id: string };
    expect((await call(`/api/v2/protection-policies/${one.id}`)).body).toEqual(estate.policy(one.id));
    const compliance = await call('/api/v2/compliance-details?pageSize=10000');
    // history: every verification run, three per asset and stage, the latest of each being the truth
    const history = estate.complianceHistory();
    expect(compliance.body.content).toEqual(history);
    expect(history).toHaveLength(3 * estate.compliance().length);
    const latest = new Map<string, { completionTime: string }>();
    for (const run of history) {
      const key = `${run.assetId}/${run.stageId}`;
      if (!latest.has(key) || Date.parse(run.completionTime) > Date.parse((latest.get(key) as { completionTime: string }).completionTime)) latest.set(key, run);
    }
    expect([...latest.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      [...estate.compliance()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    expect((await call(`/api/v2/compliance-details?${q({ filter: 'status eq FAILED' })}`)).body.page.totalElements).toBe(history.filter((c) => c.status === 'FAILED').length);
    const sources = await call(`/api/v2/inventory-sources?${q({ filter: 'type eq HV_MANAGER' })}`);
    expect(sources.body.content).toEqual(estate.inventorySources().filter((s) => s.type === 'HV_MANAGER'));
    expect(sources.body.content.map((s: { lastDiscoveryResult: { status: string } }) => s.lastDiscoveryResult.status)).toContain('FAILED');
    expect((await call('/api/v2/storage-systems')).body.content).toEqual(estate.storageSystems());
  });

  it('cloud DR sessions page as {content, pageInfo}; DELETE removes one (204, then 404)', async () => {
    const answer = await call('/api/v2/cloud-dr-sessions');
    const sessions = estate.cloudDrSessions();
    expect(answer.body).toEqual({ content: sessions, pageInfo: { size: 100, number: 1, totalPages: 1, totalElements: sessions.length } });
    const second = await call('/api/v2/cloud-dr-sessions?page=2&pageSize=1');
    expect(second.body).toEqual({ content: [sessions[1]], pageInfo: { size: 1, number: 2, totalPages: sessions.length, totalElements: sessions.length } });
    const drTypes = new Set(answer.body.content.map((s: { drType: string }) => s.drType));
    expect([...drTypes].sort()).toEqual(['Failover', 'Test']);
    // the User role may read assets but not cloud DR sessions
    const monitor = await login('monitor');
    expect((await call('/api/v2/assets?pageSize=1', { token: monitor })).status).toBe(200);
    const refused = await call('/api/v2/cloud-dr-sessions', { token: monitor });
    expect(refused.status).toBe(403);
    expectErrorBody(refused.body, 403, '/api/v2/cloud-dr-sessions');
    const victim = answer.body.content[0].id as string;
    expect((await call(`/api/v2/cloud-dr-sessions/${victim}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/api/v2/cloud-dr-sessions/${victim}`, { method: 'DELETE' })).status).toBe(404);
    expect(estate.cloudDrSessions().map((s) => s.id)).not.toContain(victim);
  });
});

describe('the estate moves with the clock', () => {
  it('a day later: new copies move lastAvailableCopyTime, activities complete with a new updateTime, new audit entries', async () => {
    const protectedAsset = estate.assets().find((a) => a.protectionStatus === 'PROTECTED' && !a.deleted && a.lastAvailableCopyTime !== null && estate.copies(a.id).length > 0);
    expect(protectedAsset).toBeDefined();
    const id = (protectedAsset as { id: string }).id;
    const before = (await call(`/api/v2/assets/${id}`)).body;
    const running = estate.activities().find((a) => a.state === 'RUNNING' && a.classType === 'JOB' && a.category === 'PROTECT');
    expect(running).toBeDefined();
    const auditBefore = estate.auditEntryCount();
    const beforeAdvance = clock.now();

    clock.advance(24 * 3_600_000);
    token = await login();

    const after = (await call(`/api/v2/assets/${id}`)).body;
    expect(Date.parse(after.lastAvailableCopyTime)).toBeGreaterThan(Date.parse(before.lastAvailableCopyTime));
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    const copies = (await call(`/api/v2/assets/${id}/copies`)).body.content;
    expect(copies[0].createTime).toBe(after.lastAvailableCopyTime);
    const done = (await call(`/api/v2/activities/${(running as { id: string }).id}`)).body;
    expect(done.state).toBe('COMPLETED');
    expect(done.updateTime).toBe(done.endTime);
    expect(Date.parse(done.updateTime)).toBeGreaterThan(Date.parse((running as { updateTime: string }).updateTime));
    const fresh = await serial('/api/v2/audit-logs', { pageSize: 100, filter: `changedTime gt "${beforeAdvance.toISOString()}"` });
    expect(fresh.items.length).toBe(estate.auditEntryCount() - auditBefore);
    expect(fresh.items.length).toBeGreaterThan(150);
  });
});
