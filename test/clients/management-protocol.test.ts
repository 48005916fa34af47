/**
 * The management client against a deliberately misbehaving service on
 * loopback: answers the simulator would never give (wrong item shapes, a
 * reused queryState token, odd statuses), to prove the client turns each into
 * a bounded ApiError instead of a crash or a wrong number.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManagementClient } from '../../src/clients/management/client';
import { collectAll } from '../../src/clients/management/paging';
import { countingRequests, type RunCount, type SkippedItem } from '../../src/clients/run-requests';
import { parseConfig, type TargetConfig } from '../../src/config/load';
import { silentLogger } from '../support/collect';

type Handler = (url: URL, req: http.IncomingMessage) => { status: number; body: unknown; headers?: Record<string, string> };

let server: http.Server;
let baseUrl: string;
let handler: Handler;
const requests: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const answer =
        url.pathname === '/api/v2/login'
          ? { status: 200, body: { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 } }
          : url.pathname === '/api/v2/logout'
            ? { status: 204, body: '' }
            : handler(url, req);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function makeClient(overrides: Record<string, unknown> = {}): ManagementClient {
  const config = parseConfig({ targets: [{ name: 'stub', kind: 'management', url: baseUrl, username: 'u', password: 's3cret-pass', pageSize: 2, ...overrides }] });
  return new ManagementClient(config.targets[0] as TargetConfig, { logger: silentLogger, http: { backoffBaseMs: 5 } });
}

const asset = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  name: `asset ${id}`,
  type: 'HV_VIRTUAL_MACHINE',
  size: 10,
  lastAvailableCopyTime: '2026-11-20T10:00:00Z',
  ...extra,
});

const policy = (id: string): Record<string, unknown> => ({ id, name: `policy ${id}` });

/** The clients a test makes with clientWith, closed after it; every test starts with no request recorded. */
const clients: ManagementClient[] = [];
function clientWith(overrides: Record<string, unknown>): ManagementClient {
  const client = makeClient(overrides);
  clients.push(client);
  return client;
}
beforeEach(() => {
  requests.length = 0;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
const sentTo = (path: string): string[] => requests.filter((r) => r.startsWith(`GET ${path}`));

describe('management client: answers of the wrong shape', () => {
  let client: ManagementClient;
  beforeEach(() => {
    requests.length = 0;
    client = makeClient();
  });
  afterEach(() => client.close());

  it('passes unknown fields and enum values through', async () => {
    handler = () => ({ status: 200, body: { content: [asset('a', { protectionStatus: 'SOMETHING_NEW', brandNew: { x: 1 } })], page: { queryState: 'END' } } });
    const page = await first(client.assets());
    expect(page).toEqual([expect.objectContaining({ id: 'a', protectionStatus: 'SOMETHING_NEW', lastAvailableCopyTime: Date.parse('2026-11-20T10:00:00Z') })]);
  });

  it('skips an item whose required field is missing or of the wrong type, counting its endpoint, id and field', async () => {
    const read = async (): Promise<{ ids: string[]; skipped: SkippedItem[] }> => {
      const count: RunCount = { requests: 0, answers: 0, skipped: [] };
      const assets = await countingRequests(count, () => collectAll(client.assets()));
      return { ids: assets.map((a) => a.id), skipped: count.skipped };
    };
    handler = () => ({ status: 200, body: { content: [asset('a'), asset('b', { type: undefined })], page: { queryState: 'END' } } });
    expect(await read()).toEqual({
      ids: ['a'],
      skipped: [{ endpoint: '/api/v2/assets', id: 'b', problem: expect.stringMatching(/^content\[1\]\.type: .*missing/), reason: 'missing_field' }],
    });
    // lastAvailableCopyTime is optional in the model: a record without it is read, as one with null
    handler = () => ({ status: 200, body: { content: [asset('a'), asset('b', { lastAvailableCopyTime: undefined })], page: { queryState: 'END' } } });
    expect((await collectAll(client.assets())).map((a) => a.lastAvailableCopyTime ?? null)).toEqual([expect.any(Number), null]);
    handler = () => ({ status: 200, body: { content: [asset('a', { size: '10 GB' }), asset('b')], page: { queryState: 'END' } } });
    expect(await read()).toEqual({ ids: ['b'], skipped: [expect.objectContaining({ id: 'a', problem: 'content[0].size: expected number, got string', reason: 'wrong_type' })] });
    handler = () => ({ status: 200, body: { content: [asset('a', { lastAvailableCopyTime: 'yesterday' })], page: { queryState: 'END' } } });
    expect(await read()).toEqual({ ids: [], skipped: [expect.objectContaining({ problem: expect.stringContaining('not an ISO 8601 timestamp'), reason: 'invalid_value' })] });
  });

  it('reads on past a page of nothing but bad items: it is not an empty page', async () => {
    handler = (url) =>
      url.searchParams.get('queryState') === 'BEGIN'
        ? { status: 200, body: { content: [asset('a', { size: 'x' })], page: { queryState: 'T1' } } }
        : { status: 200, body: { content: [asset('b')], page: { queryState: 'END' } } };
    expect((await collectAll(client.assets())).map((a) => a.id)).toEqual(['b']);
  });

  it('refuses an envelope without content or without a serial queryState', async () => {
    handler = () => ({ status: 200, body: { items: [] } });
    await expect(collectAll(client.assets())).rejects.toMatchObject({ kind: 'protocol', message: expect.stringContaining('body.content') });
    handler = () => ({ status: 200, body: { content: [asset('a')], page: { number: 1, totalPages: 1 } } });
    await expect(collectAll(client.assets())).rejects.toMatchObject({ kind: 'protocol', message: expect.stringContaining('body.page.queryState') });
  });

  it('stops when the service hands back a queryState token already used, without sending it again', async () => {
    handler = (url) => ({ status: 200, body: { content: [asset(url.searchParams.get('queryState') ?? '?')], page: { queryState: 'same-token' } } });
    await expect(collectAll(client.assets())).rejects.toMatchObject({ kind: 'protocol', message: expect.stringContaining('never sent twice') });
    const sent = requests.filter((r) => r.startsWith('GET /api/v2/assets'));
    expect(sent).toEqual(['GET /api/v2/assets?pageSize=2&queryState=BEGIN', 'GET /api/v2/assets?pageSize=2&queryState=same-token']);
  });

  it('sends serial paging exactly as the seed says: BEGIN with the filter, then only pageSize and the token, never END', async () => {
    const tokens = ['t1', 't2', 'END'];
    handler = (url) => {
      const state = url.searchParams.get('queryState');
      const index = state === 'BEGIN' ? 0 : tokens.indexOf(state ?? '') + 1;
      return { status: 200, body: { content: [asset(`x${index}`)], page: { size: 2, queryState: tokens[index] } } };
    };
    const { and, eq } = await import('../../src/clients/management/filter');
    const items = await collectAll(client.assets({ filter: and(eq('name', 'a "b"'), eq('deleted', false)) }));
    expect(items.map((a) => a.id)).toEqual(['x0', 'x1', 'x2']); // the END page's content included
    expect(requests.filter((r) => r.startsWith('GET'))).toEqual([
      `GET /api/v2/assets?filter=${encodeURIComponent('name eq "a \\"b\\"" and deleted eq false')}&pageSize=2&queryState=BEGIN`,
      'GET /api/v2/assets?pageSize=2&queryState=t1',
      'GET /api/v2/assets?pageSize=2&queryState=t2',
    ]);
  });

  it('turns an error status into a status error with the bounded reason of the error body', async () => {
    handler = () => ({ status: 404, body: { code: 404, reason: `The resource is not supported ${'x'.repeat(500)}`, remediation: null, timestamp: 1, path: '/x', extendedInfo: null } });
    const error = (await collectAll(client.assetCopies('a/b')).catch((e: unknown) => e)) as Error & { kind: string; status: number };
    expect(error).toMatchObject({ kind: 'status', status: 404 });
    expect(error.message).toMatch(/^\/api\/v2\/assets\/\{id\}\/copies: HTTP 404 \(The resource is not supported x+…\)$/);
    expect(error.message.length).toBeLessThan(260);
    // the copies are asked without those in a deletion state
    expect(requests).toContain(`GET /api/v2/assets/a%2Fb/copies?filter=${encodeURIComponent('not state in ("DELETED","SOFT_DELETED","DELETING","DELETE_FAILED","CATALOG_DELETE_FAILED")')}&page=1&pageSize=2`);
  });

  it('does not retry a 400 and never shows the password in an error', async () => {
    handler = () => ({ status: 400, body: { code: 400, reason: 'bad filter' } });
    await expect(collectAll(client.alerts())).rejects.toMatchObject({ kind: 'status', status: 400 });
    expect(requests.filter((r) => r.startsWith('GET'))).toHaveLength(1);

    const denied = makeClient({ username: 'nobody' });
    const original = server.listeners('request')[0] as http.RequestListener;
    server.removeAllListeners('request');
    server.on('request', (req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 401, reason: 'Invalid credentials' }));
    });
    try {
      const error = (await collectAll(denied.alerts()).catch((e: unknown) => e)) as Error & { kind: string };
      expect(error.kind).toBe('auth');
      expect(error.message).toContain('login rejected for user nobody (HTTP 401: Invalid credentials)');
      expect(error.message).not.toContain('s3cret-pass');
    } finally {
      server.removeAllListeners('request');
      server.on('request', original);
      await denied.close();
    }
  });

  it('reads cloud DR sessions as a bare array or as an envelope', async () => {
    const session = { id: 's1', assetName: 'vm', drType: 'Test', region: 'r', status: 'READY', instanceId: 'i', copyTime: '2026-11-20T10:00:00Z' };
    handler = () => ({ status: 200, body: [session] });
    expect(await client.cloudDrSessions()).toEqual([expect.objectContaining({ id: 's1', drType: 'Test' })]);
    handler = () => ({ status: 200, body: { content: [session, { ...session, id: 's2', status: 'FAILED_OVER' }] } });
    expect((await client.cloudDrSessions()).map((s) => s.status)).toEqual(['READY', 'FAILED_OVER']);
  });
});

describe('management client: listings that never end', () => {

  it('serial: stops at an empty page whose queryState is not END, naming the endpoint', async () => {
    let token = 0;
    handler = () => ({ status: 200, body: { content: [], page: { queryState: `fresh-${token++}` } } });
    await expect(collectAll(clientWith({}).assets())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/assets: serial paging: page 1 is empty but its queryState is not END',
    });
    expect(sentTo('/api/v2/assets')).toHaveLength(1);
  });

  it('serial: full pages with fresh tokens forever stop at maxListingItems / pageSize pages', async () => {
    let token = 0;
    handler = () => ({ status: 200, body: { content: [asset(`a${token}`), asset(`b${token}`)], page: { queryState: `fresh-${token++}` } } });
    await expect(collectAll(clientWith({ maxListingItems: 10 }).assets())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/assets: serial paging did not reach END after 5 pages: more than 5 pages of 2, the bound maxListingItems (10) sets',
    });
    expect(sentTo('/api/v2/assets')).toHaveLength(5);
  });

  it('serial: a listing of exactly maxListingItems items is read whole', async () => {
    let page = 0;
    handler = () => {
      page += 1;
      return { status: 200, body: { content: [asset(`a${page}`), asset(`b${page}`)], page: { queryState: page === 5 ? 'END' : `fresh-${page}` } } };
    };
    expect(await collectAll(clientWith({ maxListingItems: 10 }).assets())).toHaveLength(10);
  });

  it('random: a billion pages claimed fail the listing at its first page', async () => {
    handler = () => ({ status: 200, body: { content: [policy('p1'), policy('p2')], page: { number: 1, totalPages: 1_000_000_000 } } });
    await expect(collectAll(clientWith({}).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: random paging: the service claims 1000000000 pages: more than 1000000 pages of 2, the bound maxListingItems (2000000) sets',
    });
    expect(sentTo('/api/v2/protection-policies')).toHaveLength(1);
  });

  it('random: stops at an empty page before totalPages', async () => {
    handler = (url) => {
      const page = Number(url.searchParams.get('page'));
      const content = page === 1 ? [policy('p1'), policy('p2')] : [];
      return { status: 200, body: { content, page: { number: page, totalPages: 3 } } };
    };
    await expect(collectAll(clientWith({ maxConcurrency: 1 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: random paging: page 2 is empty but the service claims 3 pages',
    });
    expect(sentTo('/api/v2/protection-policies')).toHaveLength(2);
  });

  it('random over 10,000 results: a count above maxListingItems fails before any range is read', async () => {
    handler = () => ({ status: 200, body: { content: [policy('p1'), policy('p2')], page: { number: 1, totalPages: 25_000, totalElements: 50_000 } } });
    await expect(collectAll(clientWith({ maxListingItems: 20_000, pageSize: 2 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: the service counts 50000 results: more than maxListingItems (20000)',
    });
    expect(sentTo('/api/v2/protection-policies')).toHaveLength(1);
  });
});

describe('management client: pages that would be counted wrong', () => {
  const pageOf = (url: URL): number => Number(url.searchParams.get('page'));

  it('random: a page whose number is not the one asked (a proxy dropping `page`) fails the listing, copies not counted twice', async () => {
    const copy = (id: string): Record<string, unknown> => ({ id, size: 100, location: 'LOCAL' });
    handler = () => ({ status: 200, body: { content: [copy('c0'), copy('c1')], page: { size: 2, number: 1, totalPages: 3, totalElements: 6 } } });
    await expect(collectAll(clientWith({ maxConcurrency: 1 }).assetCopies('asset-1'))).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/assets/{id}/copies: asked for page 2 and got page 1',
    });
    expect(sentTo('/api/v2/assets/asset-1/copies')).toHaveLength(2);
  });

  it('random: without a page number, a page past the first that opens with the first page\'s first row is the first page again', async () => {
    handler = () => ({ status: 200, body: { content: [policy('p1'), policy('p2')], page: { totalPages: 3 } } });
    await expect(collectAll(clientWith({ maxConcurrency: 1 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: asked for page 2 and got the first page again',
    });
    // pages that do differ are read whole, numbered or not
    handler = (url) => ({ status: 200, body: { content: [policy(`a${pageOf(url)}`), policy(`b${pageOf(url)}`)], page: { totalPages: 3 } } });
    expect((await collectAll(clientWith({}).protectionPolicies())).map((p) => p.id)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('refuses a page holding more items than the pageSize asked, serial and random', async () => {
    const many = (prefix: string) => Array.from({ length: 50 }, (_, i) => policy(`${prefix}${i}`));
    handler = (url) => ({ status: 200, body: { content: many(`p${pageOf(url)}-`), page: { number: pageOf(url), totalPages: 3, totalElements: 6 } } });
    await expect(collectAll(clientWith({}).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: page 1 holds 50 items, pageSize 2',
    });
    handler = () => ({ status: 200, body: { content: many('a').map((p) => asset(p.id as string)), page: { queryState: 'END' } } });
    await expect(collectAll(clientWith({}).assets())).rejects.toMatchObject({ kind: 'protocol', message: '/api/v2/assets: page 1 holds 50 items, pageSize 2' });
  });

  it('maxListingItems bounds the items read, not only the pages', async () => {
    let token = 0;
    handler = () => ({ status: 200, body: { content: [asset(`a${token}`), asset(`b${token}`)], page: { queryState: token++ < 5 ? `t${token}` : 'END' } } });
    await expect(collectAll(clientWith({ maxListingItems: 5 }).assets())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/assets: 6 items by page 3: more than maxListingItems (5)',
    });
    expect(sentTo('/api/v2/assets')).toHaveLength(3);
  });

  it('compliance-details: a page may hold more records than pageSize (it counts results), and maxListingItems still bounds them', async () => {
    const record = (page: number, i: number) => ({ assetId: `asset-${page}-${i}`, stageId: 's', status: 'SUCCEEDED' });
    handler = (url) => ({
      status: 200,
      body: { content: Array.from({ length: 5 }, (_, i) => record(pageOf(url), i)), page: { number: pageOf(url), totalPages: 2, totalElements: 4 } },
    });
    expect(await collectAll(clientWith({}).complianceDetails())).toHaveLength(10);
    await expect(collectAll(clientWith({ maxListingItems: 8 }).complianceDetails())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/compliance-details: 10 items by page 2: more than maxListingItems (8)',
    });
  });
});

describe('management client: an item nested deeper than the encoder recurses', () => {
  // 20,000 levels of arrays: 40 kB of body, valid JSON, in a field no schema names (unknown fields are dropped, not read)
  const deep = (depth = 20_000): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const withDeepField = (item: Record<string, unknown>): string => `${JSON.stringify(item).slice(0, -1)},"extension":${deep()}}`;

  it('costs nothing, not the listing: serial and random pages whose first item carries it are read whole', async () => {
    handler = (url) => {
      const begin = url.searchParams.get('queryState') === 'BEGIN';
      const items = begin ? [withDeepField(asset('a')), JSON.stringify(asset('b'))] : [withDeepField(asset('c'))];
      return { status: 200, body: `{"content":[${items.join(',')}],"page":{"queryState":"${begin ? 'T1' : 'END'}"}}` };
    };
    expect((await collectAll(clientWith({}).assets())).map((a) => a.id)).toEqual(['a', 'b', 'c']);
    handler = (url) => {
      const page = Number(url.searchParams.get('page'));
      return { status: 200, body: `{"content":[${withDeepField(policy(`p${page}`))}],"page":{"totalPages":2}}` };
    };
    expect((await collectAll(clientWith({}).protectionPolicies())).map((p) => p.id)).toEqual(['p1', 'p2']);
  });
});

describe('management client: random pages that count their results but not their pages', () => {
  const pageOf = (url: URL): number => Number(url.searchParams.get('page'));

  it('random: a page with totalElements and no totalPages is not the whole list: the pages its count needs are read', async () => {
    handler = (url) => ({
      status: 200,
      body: { content: [policy(`a${pageOf(url)}`), policy(`b${pageOf(url)}`)], page: { number: pageOf(url), size: 2, totalElements: 6 } },
    });
    expect((await collectAll(clientWith({}).protectionPolicies())).map((p) => p.id)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    expect(sentTo('/api/v2/protection-policies')).toHaveLength(3);
  });

  it('copy-metrics counting 50,000 rows without totalPages is read to its 10,000th row, not taken as its first 1,000', async () => {
    const row = (page: number, i: number) => ({ assetId: `asset-${page}-${i}`, totalNumbers: 1, stageCopyMetrics: [] });
    handler = (url) => ({
      status: 200,
      body: { content: Array.from({ length: 1000 }, (_, i) => row(pageOf(url), i)), page: { number: pageOf(url), size: 1000, totalElements: 50_000 } },
    });
    expect(await collectAll(clientWith({ pageSize: 1000 }).copyMetrics())).toHaveLength(10_000);
    expect(sentTo('/api/v2/copy-metrics')).toHaveLength(10);
  });

  it('copy-metrics is read to its 10,000th row whatever the pageSize: 3000 does not stop it at 9,000', async () => {
    handler = (url) => {
      const [page, size] = [pageOf(url), Number(url.searchParams.get('pageSize'))];
      // the service: no random page reaching past the 10,000th of the 50,000 results
      if (page * size > 10_000) return { status: 400, body: { code: 400, reason: 'random paging is not available for results above 10000 resources in total' } };
      const content = Array.from({ length: size }, (_, i) => ({ assetId: `asset-${(page - 1) * size + i}`, totalNumbers: 1, stageCopyMetrics: [] }));
      return { status: 200, body: { content, page: { number: page, size, totalPages: Math.ceil(50_000 / size), totalElements: 50_000 } } };
    };
    const rows = await collectAll(clientWith({ pageSize: 3000 }).copyMetrics());
    expect(new Set(rows.map((row) => row.assetId)).size).toBe(10_000);
  });

  it('latest-copies counting more copies than its one page holds fails, rather than calling the assets left out "without copy"', async () => {
    const copy = (assetId: string) => ({ id: `c-${assetId}`, assetId, createTime: '2026-11-20T10:00:00Z', location: 'LOCAL' });
    handler = () => ({ status: 200, body: { content: [copy('a1')], page: { number: 1, size: 1, totalElements: 2 } } });
    await expect(clientWith({}).latestCopies(['a1', 'a2'])).rejects.toMatchObject({ kind: 'protocol', endpoint: '/api/v2/latest-copies' });
  });
});

describe('management client: a listing read in ranges of the key', () => {
  const policyRequests = (): number => requests.filter((r) => r.startsWith('GET /api/v2/protection-policies')).length;
  /** The id range a request's filter asks for, as key-space points (16^8 of them), or undefined for the whole query. */
  const rangeOf = (url: URL): { lo: number; hi: number } | undefined => {
    const filter = url.searchParams.get('filter') ?? '';
    const bound = (op: string) => filter.match(new RegExp(`id ${op} "([0-9a-f]*)"`))?.[1];
    const point = (hex: string) => parseInt(hex.padEnd(8, '0'), 16);
    const [ge, lt] = [bound('ge'), bound('lt')];
    return ge === undefined && lt === undefined ? undefined : { lo: ge ? point(ge) : 0, hi: lt ? point(lt) : 16 ** 8 };
  };
  const answer = (url: URL, total: number, content: unknown[]) => ({
    status: 200,
    body: { content, page: { number: Number(url.searchParams.get('page')), totalPages: Math.ceil(total / 1000), totalElements: total } },
  });

  it('a range counting more results than the query it narrows fails the listing at once, without a request storm', async () => {
    handler = (url) => answer(url, rangeOf(url) ? 100_000_000 : 20_000, [policy('p1')]);
    await expect(collectAll(clientWith({ pageSize: 1000 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: 100000000 results with id from "0" on: more than the 20000 it is part of',
    });
    expect(policyRequests()).toBe(2);
  });

  it('ranges that split without end stop at the requests maxListingItems allows', async () => {
    // every range wider than 16^6 points claims the whole count; narrower ones are empty: some 360 requests, no rows, no error
    handler = (url) => {
      const range = rangeOf(url);
      return answer(url, !range || range.hi - range.lo > 16 ** 6 ? 20_000 : 0, []);
    };
    await expect(collectAll(clientWith({ pageSize: 1000, maxListingItems: 20_000 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: not read after 26 requests, the most maxListingItems (20000) allows',
    });
    expect(policyRequests()).toBe(26);
  });

  it('without page numbers, a range past the first whose page 2 is its page 1 again fails the listing (a proxy dropping `page`)', async () => {
    // 10,500 results: ranges below and from "8"; the first holds one page, the second 10 pages the proxy answers all as its first
    handler = (url) => {
      const range = rangeOf(url);
      const total = !range ? 10_500 : range.lo === 0 ? 500 : 10_000;
      const rows = Array.from({ length: Math.min(total, 1000) }, (_, i) => policy(`${range?.lo === 0 ? '1' : '9'}-${i}`));
      return { status: 200, body: { content: rows, page: { totalPages: Math.ceil(total / 1000), totalElements: total } } };
    };
    await expect(collectAll(clientWith({ pageSize: 1000, maxConcurrency: 1 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: asked for page 2 and got the first page again',
    });
  });

  it('the ranges together hold to maxListingItems: items past it fail the listing', async () => {
    // each of the three ranges claims 10,000 (under the whole query's 20,000) and serves full pages of distinct rows
    handler = (url) => {
      const range = rangeOf(url);
      const page = Number(url.searchParams.get('page'));
      const rows = Array.from({ length: 1000 }, (_, i) => policy(`${range?.lo ?? 'all'}-${page}-${i}`));
      return answer(url, range ? 10_000 : 20_000, rows);
    };
    await expect(collectAll(clientWith({ pageSize: 1000, maxListingItems: 20_000 }).protectionPolicies())).rejects.toMatchObject({
      kind: 'protocol',
      message: '/api/v2/protection-policies: 21000 items by page 1: more than maxListingItems (20000)',
    });
    expect(policyRequests()).toBe(22);
  });
});

async function first<T>(pages: AsyncGenerator<T[]>): Promise<T[]> {
  const next = await pages.next();
  await pages.return(undefined);
  return next.done ? [] : next.value;
}
