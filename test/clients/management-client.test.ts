/**
 * The management client against the simulator over real HTTP: login sharing
 * and re-login, both paging modes, faults (token expiry mid-paging, 429/503
 * with Retry-After, malformed and failing pages, a hanging endpoint) and the
 * filter builder's escaping.
 */
import { ManagementClient } from '../../src/clients/management/client';
import { and, eq, isIn } from '../../src/clients/management/filter';
import { collectAll } from '../../src/clients/management/paging';
import type { RunningSimulator } from '../../simulator';
import { eventually } from '../support/cli-process';
import { silentLogger, simulatorTarget } from '../support/collect';
import { recordSleeps } from '../support/sleeps';
import { managementHarness, startManagementSimulator, type Harness } from '../collectors/management/helpers';

const ASSETS = 450;
let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: ASSETS, activitiesPerDay: 50, auditEntries: 100 });
});
afterAll(() => sim.close());

beforeEach(() => {
  sim.faults.clear();
  sim.stats.reset();
  h = managementHarness(sim, { pageSize: 100 });
});
afterEach(() => h.client.close());

const assetListRequests = (): number => sim.stats.count('management', /^\/api\/v2\/assets$/);
const codes = (endpoint: string): string[] => h.requests.filter((r) => r.endpoint === endpoint).map((r) => r.code);

describe('management client against the simulator', () => {
  it('reads every asset by serial paging, the END page included, in ceil(n / pageSize) requests', async () => {
    const assets = await collectAll(h.client.assets());
    expect(assets.map((a) => a.id)).toEqual(sim.estate.management.assets().map((a) => a.id));
    expect(assetListRequests()).toBe(Math.ceil(ASSETS / 100));
    expect(codes('/api/v2/assets').every((code) => code === '200')).toBe(true);
  });

  it('logs in once for many concurrent requests, and logs out on close', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => collectAll(h.client.protectionPolicies())));
    expect(results.every((policies) => policies.length === sim.estate.management.policies().length)).toBe(true);
    expect(sim.stats.count('management', '/api/v2/login')).toBe(1);
    await h.client.close();
    expect(sim.stats.count('management', '/api/v2/logout')).toBe(1);
    expect(codes('/api/v2/logout')).toEqual(['204']);
  });

  it('closes within the logout time limit while a login the service never answers still runs', async () => {
    sim.faults.add({ api: 'management', path: '/api/v2/login', fault: { kind: 'hang' } });
    const { client } = managementHarness(sim, { requestTimeout: '10m', maxAttempts: 1 });
    const run = new AbortController();
    const listing = collectAll(client.alerts({}, run.signal)).catch((e: unknown) => e);
    await eventually(() => sim.stats.count('management', '/api/v2/login') === 1);
    run.abort(new Error('collector stopped')); // as a stop aborts the runs: the login goes on for other callers
    expect(await listing).toMatchObject({ kind: 'aborted' });
    // The stop deadline (docs/operations.md#stop) gives each logout 5 s and 2 s more to cut the connections, not the login's 10 min.
    await client.close();
    expect(sim.stats.count('management', '/api/v2/logout')).toBe(0); // no token was issued: nothing to log out
  }, 20_000);

  it('logs in again when the token expires in the middle of paging, and never sends a queryState token twice', async () => {
    sim.faults.tokenExpiresAfterRequests = 2;
    const assets = await collectAll(h.client.assets());
    expect(assets).toHaveLength(ASSETS);
    const pages = Math.ceil(ASSETS / 100);
    const statuses = codes('/api/v2/assets');
    // every page once with 200; each 401 repeated once after a new login; no 400 (a reused token would get one)
    expect(statuses.filter((c) => c === '200')).toHaveLength(pages);
    expect(statuses.filter((c) => c !== '200' && c !== '401')).toEqual([]);
    expect(statuses.filter((c) => c === '401').length).toBeGreaterThanOrEqual(2);
    expect(assetListRequests()).toBe(statuses.length);
    expect(sim.stats.count('management', '/api/v2/login')).toBe(1 + statuses.filter((c) => c === '401').length);
  });

  it('repeats a request only once after a re-login: a fresh token answered 401 is an auth error', async () => {
    sim.faults.tokenExpiresAfterRequests = 0;
    await expect(collectAll(h.client.alerts())).rejects.toMatchObject({ kind: 'auth', status: 401 });
    expect(sim.stats.count('management', '/api/v2/login')).toBe(2);
    expect(sim.stats.count('management', '/api/v2/alerts')).toBe(2);
  });

  it('waits for Retry-After on 429 and 503 in the middle of serial paging, and the paging goes on', async () => {
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, skip: 1, times: 1, fault: { kind: 'status', status: 429, retryAfterSeconds: 1 } });
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, skip: 3, times: 1, fault: { kind: 'status', status: 503, retryAfterSeconds: 1 } });
    const sleeps = recordSleeps();
    const assets = await collectAll(h.client.assets()).finally(() => sleeps.restore());
    expect(assets.map((a) => a.id)).toEqual(sim.estate.management.assets().map((a) => a.id));
    expect(sleeps.delays).toEqual([1000, 1000]); // each Retry-After, longer than the first backoff step
    expect(codes('/api/v2/assets').filter((c) => c !== '200').sort()).toEqual(['429', '503']);
    expect(assetListRequests()).toBe(Math.ceil(ASSETS / 100) + 2);
  });

  it('fails a listing with a malformed page as a parse error, and one with a 500 mid-paging as a status error', async () => {
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, skip: 2, times: 1, fault: { kind: 'malformed' } });
    await expect(collectAll(h.client.assets())).rejects.toMatchObject({ kind: 'parse', endpoint: '/api/v2/assets' });
    sim.faults.clear();
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, skip: 2, times: 1, fault: { kind: 'status', status: 500 } });
    const error = (await collectAll(h.client.assets()).catch((e: unknown) => e)) as Error & { kind: string; status: number };
    expect(error).toMatchObject({ kind: 'status', status: 500 });
    expect(error.message).toBe('/api/v2/assets: HTTP 500 (An unexpected error occurred)');
  });

  it('ends a hanging request at the collector signal, or at the per-request time limit', async () => {
    sim.faults.add({ api: 'management', path: '/api/v2/audit-logs', fault: { kind: 'hang' } });
    // The error's kind says which limit ended the request; the request counts, that an abort is not retried.
    await expect(collectAll(h.client.auditLogs({}, AbortSignal.timeout(300)))).rejects.toMatchObject({ kind: 'aborted' });
    expect(h.requests.filter((r) => r.endpoint === '/api/v2/audit-logs').map((r) => r.code)).toEqual(['error']);

    const impatient = managementHarness(sim, { requestTimeout: '300ms', maxAttempts: 2 });
    try {
      await expect(collectAll(impatient.client.auditLogs())).rejects.toMatchObject({ kind: 'timeout' });
      expect(impatient.requests.filter((r) => r.endpoint === '/api/v2/audit-logs').map((r) => r.code)).toEqual(['error', 'error']);
    } finally {
      await impatient.client.close();
    }
  });

  it('does not retry a serial page after a network failure: the token may already be spent', async () => {
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, skip: 1, times: 1, fault: { kind: 'reset' } });
    await expect(collectAll(h.client.assets())).rejects.toMatchObject({ kind: 'network' });
    expect(assetListRequests()).toBe(2);
    sim.faults.clear();
    // the first page (BEGIN) is safe to repeat
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, times: 1, fault: { kind: 'reset' } });
    expect(await collectAll(h.client.assets())).toHaveLength(ASSETS);
  });

  it('finds assets by names with double quotes, backslashes and non-ASCII through the filter builder', async () => {
    const awkward = sim.estate.management.assets().filter((a) => /["\\]|[^\x20-\x7e]/.test(a.name));
    expect(awkward.length).toBeGreaterThanOrEqual(3);
    for (const asset of awkward.slice(0, 6)) {
      const found = await collectAll(h.client.assets({ filter: and(eq('name', asset.name), eq('deleted', asset.deleted)) }));
      expect(found.map((a) => a.id)).toEqual([asset.id]);
    }
  });

  it('reads latest-copies for a batch of ids in one request', async () => {
    const ids = sim.estate.management.assets().slice(0, 100).map((a) => a.id);
    const latest = await h.client.latestCopies(ids);
    const expected = ids.flatMap((id) => {
      const copy = sim.estate.management.latestCopy(id);
      return copy ? [{ assetId: id, createTime: Date.parse(copy.createTime) }] : [];
    });
    expect(latest.copies.map((c) => ({ assetId: c.assetId, createTime: c.createTime }))).toEqual(expected);
    expect(latest.unreadable).toEqual([]);
    expect(sim.stats.count('management', '/api/v2/latest-copies')).toBe(1);
  });

  it("names the assets of latest-copies items that fail their checks: an unreadable item is no claim of 'no copy'", async () => {
    const ids = sim.estate.management.assets().slice(0, 100).map((a) => a.id);
    const withCopies = ids.filter((id) => sim.estate.management.latestCopy(id));
    sim.faults.add({ api: 'management', path: '/api/v2/latest-copies', times: 1, fault: { kind: 'item', index: 0, field: 'createTime', value: 17 } });
    const first = await h.client.latestCopies(ids);
    expect(first.unreadable).toEqual([withCopies[0]]);
    expect(first.copies.map((c) => c.assetId)).toEqual(withCopies.slice(1));
    sim.faults.add({ api: 'management', path: '/api/v2/latest-copies', times: 1, fault: { kind: 'item', index: 0, field: 'assetId', value: null } });
    const second = await h.client.latestCopies(ids);
    expect(second.unreadable).toEqual(ids); // an item naming no asset may be any one's
  });

  it('pages randomly where the endpoint offers nothing else, and records path templates only', async () => {
    const asset = sim.estate.management.assets().find((a) => sim.estate.management.copies(a.id).length > 3) as { id: string };
    await h.client.close();
    h = managementHarness(sim, { pageSize: 2 });
    const copies = await collectAll(h.client.assetCopies(asset.id));
    expect(copies.map((c) => c.id).sort()).toEqual(sim.estate.management.copies(asset.id).map((c) => c.id).sort());
    expect(h.requests.every((r) => !r.endpoint.includes(asset.id))).toBe(true);
    expect(codes('/api/v2/assets/{id}/copies')).toHaveLength(Math.ceil(copies.length / 2));
    const activities = await collectAll(h.client.activities({ filter: isIn('classType', ['JOB', 'JOB_GROUP']) }));
    expect(activities.length).toBeGreaterThan(0);
  });

  it('logs in with the configured password only when sending it (wrong password: auth error without the password)', async () => {
    const target = simulatorTarget(sim, 'management', { password: 'not-the-password' });
    const client = new ManagementClient(target, { logger: silentLogger });
    try {
      const error = (await collectAll(client.alerts()).catch((e: unknown) => e)) as Error & { kind: string };
      expect(error.kind).toBe('auth');
      expect(error.message).not.toContain('not-the-password');
      expect(JSON.stringify(target)).not.toContain('not-the-password');
    } finally {
      await client.close();
    }
  });
});

describe('random paging with pages requested ahead', () => {
  const PAGE = 50;
  const metricRequests = (): number => sim.stats.count('management', '/api/v2/copy-metrics');

  it('yields the pages in order, the same items as one page at a time, when a slow page answers after later ones', async () => {
    const oneByOne = managementHarness(sim, { pageSize: PAGE, maxConcurrency: 1 });
    const ahead = managementHarness(sim, { pageSize: PAGE, maxConcurrency: 4 });
    try {
      const sequential = await collectAll(oneByOne.client.copyMetrics());
      expect(sequential.length).toBeGreaterThan(4 * PAGE); // enough pages for a window of 4
      sim.stats.reset();
      // page 2 answers last of the window
      sim.faults.add({ api: 'management', path: '/api/v2/copy-metrics', skip: 1, times: 1, fault: { kind: 'latency', ms: 300 } });
      const concurrent = await collectAll(ahead.client.copyMetrics());
      expect(concurrent.map((m) => m.assetId)).toEqual(sequential.map((m) => m.assetId));
      expect(metricRequests()).toBe(Math.ceil(sequential.length / PAGE));
    } finally {
      await oneByOne.client.close();
      await ahead.client.close();
    }
  });

  it('has at most the target connections requested ahead, and aborts them when the caller stops', async () => {
    // The hung requests' own time limit outlasts the test: only the abort can end them.
    const ahead = managementHarness(sim, { pageSize: PAGE, maxConcurrency: 4, requestTimeout: '10m' });
    // every page after the first hangs: the requests ahead stay in flight
    sim.faults.add({ api: 'management', path: '/api/v2/copy-metrics', skip: 1, fault: { kind: 'hang' } });
    const pages = ahead.client.copyMetrics();
    const first = await pages.next();
    expect(first.done).toBe(false);
    await eventually(() => metricRequests() === 5, 5_000, 'pages 2-5 requested ahead of page 1'); // counted on arrival
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(metricRequests()).toBe(5); // 4 connections: no more than 4 pages ahead
    await pages.return(undefined);
    // undici's close waits for requests in flight: it returns only if the four were aborted
    await ahead.client.close();
    expect(ahead.requests.filter((r) => r.endpoint === '/api/v2/copy-metrics').map((r) => r.code).sort()).toEqual(['200', 'error', 'error', 'error', 'error']);
  });

  it('holds no more pages than the window while the caller works on one: the rest are requested as pages are handed over', async () => {
    const ahead = managementHarness(sim, { pageSize: PAGE, maxConcurrency: 4 });
    const answered = (): number => ahead.requests.filter((r) => r.endpoint === '/api/v2/copy-metrics' && r.code === '200').length;
    try {
      const pages = ahead.client.copyMetrics();
      expect((await pages.next()).done).toBe(false);
      // The caller keeps page 1: pages 2-5 answer, and nothing may be asked for after them.
      await eventually(() => answered() === 5, 5_000, 'pages 2-5 answered');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(metricRequests()).toBe(5);
      expect((await pages.next()).done).toBe(false); // page 2 handed over: page 6 is asked for
      await eventually(() => metricRequests() === 6, 5_000, 'page 6 requested');
      await pages.return(undefined);
    } finally {
      await ahead.client.close();
    }
  });

  it('fails the listing at a failing page and abandons the pages requested after it, without unhandled rejections', async () => {
    const ahead = managementHarness(sim, { pageSize: PAGE, maxConcurrency: 4, maxAttempts: 1 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      sim.faults.add({ api: 'management', path: '/api/v2/copy-metrics', skip: 2, times: 1, fault: { kind: 'status', status: 500 } });
      sim.faults.add({ api: 'management', path: '/api/v2/copy-metrics', skip: 1, fault: { kind: 'latency', ms: 200 } });
      const error = await collectAll(ahead.client.copyMetrics()).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'status', status: 500, endpoint: '/api/v2/copy-metrics' });
      // the abandoned pages settle: every request the service received has ended at the client
      const copyMetricsEnded = (): number => ahead.requests.filter((r) => r.endpoint === '/api/v2/copy-metrics').length;
      while (copyMetricsEnded() < metricRequests()) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await ahead.client.close();
    }
  });
});
