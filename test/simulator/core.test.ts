import express from 'express';
import { Agent, request } from 'undici';
import { SimulatedClock } from '../../simulator/core/clock';
import { Faults } from '../../simulator/core/faults';
import { SeededRandom } from '../../simulator/core/random';
import { startApiServer } from '../../simulator/core/server';
import type { ApiServer } from '../../simulator/core/server';
import { Stats } from '../../simulator/core/stats';
import { generateSelfSignedCert } from '../../simulator/core/tls';

describe('SimulatedClock', () => {
  it('calls listeners in registration order with the span covered', () => {
    const clock = new SimulatedClock(new Date('2026-01-01T00:00:00Z'));
    const calls: string[] = [];
    clock.onAdvance((from, to) => calls.push(`a ${from.toISOString()} ${to.toISOString()}`));
    clock.onAdvance(() => calls.push('b'));
    clock.advance(60_000);
    clock.set(new Date('2026-01-01T01:00:00Z'));
    expect(clock.now().toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(calls).toEqual([
      'a 2026-01-01T00:00:00.000Z 2026-01-01T00:01:00.000Z',
      'b',
      'a 2026-01-01T00:01:00.000Z 2026-01-01T01:00:00.000Z',
      'b',
    ]);
  });

  it('moves back silently on set() to an earlier time and rejects negative advances', () => {
    const clock = new SimulatedClock(new Date('2026-01-01T00:00:00Z'));
    const listener = jest.fn();
    clock.onAdvance(listener);
    clock.set(new Date('2025-12-31T00:00:00Z'));
    expect(listener).not.toHaveBeenCalled();
    expect(clock.now().toISOString()).toBe('2025-12-31T00:00:00.000Z');
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('hands out copies of its time, so callers cannot move it', () => {
    const clock = new SimulatedClock(new Date('2026-01-01T00:00:00Z'));
    clock.now().setFullYear(1999);
    expect(clock.now().getUTCFullYear()).toBe(2026);
  });
});

describe('SeededRandom', () => {
  const draws = (r: SeededRandom, n: number) => Array.from({ length: n }, () => r.next());

  it('repeats the same sequence for the same seed and differs for another', () => {
    expect(draws(new SeededRandom(42), 20)).toEqual(draws(new SeededRandom(42), 20));
    expect(draws(new SeededRandom(42), 20)).not.toEqual(draws(new SeededRandom(43), 20));
    for (const x of draws(new SeededRandom(7), 1000)) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });

  it('int() covers both bounds and nothing outside them', () => {
    const r = new SeededRandom(1);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(r.int(3, 7));
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
    expect(() => r.int(5, 4)).toThrow(RangeError);
  });

  it('pick, chance and uuid behave', () => {
    const r = new SeededRandom(9);
    const items = ['a', 'b', 'c'] as const;
    const picked = new Set(Array.from({ length: 200 }, () => r.pick(items)));
    expect(picked).toEqual(new Set(items));
    expect(() => r.pick([])).toThrow(RangeError);
    expect(Array.from({ length: 100 }, () => r.chance(0)).some(Boolean)).toBe(false);
    expect(Array.from({ length: 100 }, () => r.chance(1)).every(Boolean)).toBe(true);
    const uuid = r.uuid();
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new SeededRandom(9).uuid()).toBe(new SeededRandom(9).uuid());
  });

  it('fork() depends on seed and label only, never on draws made before', () => {
    const used = new SeededRandom(5);
    draws(used, 37);
    expect(draws(used.fork('storage'), 10)).toEqual(draws(new SeededRandom(5).fork('storage'), 10));
    expect(draws(new SeededRandom(5).fork('storage'), 10)).not.toEqual(draws(new SeededRandom(5).fork('replication'), 10));
    expect(draws(new SeededRandom(5).fork('storage'), 10)).not.toEqual(draws(new SeededRandom(6).fork('storage'), 10));
  });
});

describe('Faults.match', () => {
  it('passes `skip` requests, then applies the fault `times` times', () => {
    const faults = new Faults();
    faults.add({ api: 'storage', path: '/alerts', skip: 2, times: 2, fault: { kind: 'status', status: 503 } });
    const results = Array.from({ length: 6 }, () => faults.match('storage', 'GET', '/rest/v1.0/store-systems/0/alerts')?.kind);
    expect(results).toEqual([undefined, undefined, 'status', 'status', undefined, undefined]);
  });

  it('matches api, method (any case), substring and RegExp paths; clear() removes rules and knobs', () => {
    const faults = new Faults();
    faults.add({ api: 'replication', method: 'get', path: /\/vms$/g, fault: { kind: 'reset' } });
    faults.add({ api: 'management', path: '/login', fault: { kind: 'hang' } });
    expect(faults.match('replication', 'GET', '/api/v1/vms')?.kind).toBe('reset');
    expect(faults.match('replication', 'GET', '/api/v1/vms')?.kind).toBe('reset'); // a /g RegExp must not alternate
    expect(faults.match('replication', 'POST', '/api/v1/vms')).toBeUndefined();
    expect(faults.match('replication', 'GET', '/api/v1/vms/1')).toBeUndefined();
    expect(faults.match('storage', 'GET', '/api/v1/vms')).toBeUndefined();
    expect(faults.match('management', 'POST', '/api/v2/login')?.kind).toBe('hang');
    faults.replicationMaxConcurrent = 3;
    faults.tokenExpiresAfterRequests = 10;
    faults.clear();
    expect(faults.match('replication', 'GET', '/api/v1/vms')).toBeUndefined();
    expect(faults.replicationMaxConcurrent).toBeUndefined();
    expect(faults.tokenExpiresAfterRequests).toBeUndefined();
  });

  it('lets a later rule apply once an earlier one is used up', () => {
    const faults = new Faults();
    faults.add({ api: 'storage', times: 1, fault: { kind: 'status', status: 500 } });
    faults.add({ api: 'storage', fault: { kind: 'malformed' } });
    expect(faults.match('storage', 'GET', '/x')?.kind).toBe('status');
    expect(faults.match('storage', 'GET', '/x')?.kind).toBe('malformed');
  });
});

describe('startApiServer', () => {
  let faults: Faults;
  let stats: Stats;
  let server: ApiServer;
  let agent: Agent;

  const app = express();
  app.get('/items', (_req, res) => {
    res.json({ items: [1, 2, 3] });
  });
  /** the records the app serves: a fault must change its answer, never them */
  const records = [
    { id: 'a', size: 1 },
    { id: 'b', size: 2 },
  ];
  app.get('/records', (_req, res) => {
    res.json({ page: { number: 1 }, content: records });
  });
  app.get('/bare', (_req, res) => {
    res.json(records);
  });

  beforeEach(async () => {
    faults = new Faults();
    stats = new Stats();
    server = await startApiServer({
      api: 'replication',
      app,
      faults,
      stats,
      errorBody: (status, req, reason) => ({ status, path: req.path, ...(reason !== undefined ? { reason } : {}) }),
    });
    agent = new Agent();
  });
  afterEach(async () => {
    await server.close();
    await agent.close();
  });

  const get = (path: string, opts: { headersTimeout?: number } = {}) => request(`${server.url}${path}`, { dispatcher: agent, ...opts });

  it('serves the app on 127.0.0.1 and counts requests and response bytes', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await get('/items?x=1');
    const text = await res.body.text();
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(text)).toEqual({ items: [1, 2, 3] });
    await (await get('/nowhere')).body.text();
    expect(stats.total('replication')).toBe(2);
    expect(stats.total('storage')).toBe(0);
    expect(stats.count('replication', '/items')).toBe(1);
    expect(stats.count('replication', /^\/items$/, 'GET')).toBe(1);
    expect(stats.count('replication', '/items', 'POST')).toBe(0);
    expect(stats.bytes('replication')).toBeGreaterThanOrEqual(Buffer.byteLength(text));
    stats.reset();
    expect(stats.total()).toBe(0);
  });

  it('status fault: answers the status, Retry-After and the API error body', async () => {
    faults.add({ api: 'replication', path: '/items', fault: { kind: 'status', status: 503, retryAfterSeconds: 7 } });
    const res = await get('/items');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(await res.body.json()).toEqual({ status: 503, path: '/items' });
    expect(stats.count('replication', '/items')).toBe(1);
  });

  it('status fault with a reason: the API error body carries the reason built from the request, body and headers', async () => {
    faults.add({ api: 'replication', path: '/login', fault: { kind: 'status', status: 400, reason: (req) => `${String(req.headers['x-user'])} sent ${req.body}` } });
    const res = await request(`${server.url}/login`, { dispatcher: agent, method: 'POST', headers: { 'x-user': 'u1' }, body: '{"password":"pw"}' });
    expect(res.statusCode).toBe(400);
    expect(await res.body.json()).toEqual({ status: 400, path: '/login', reason: 'u1 sent {"password":"pw"}' });
  });

  it('item fault: one listed item of the answer gets the value, by id or by index, and the app keeps its records', async () => {
    faults.add({ api: 'replication', path: '/records', times: 1, fault: { kind: 'item', id: 'b', field: 'size', value: 'NaN' } });
    expect(await (await get('/records')).body.json()).toEqual({ page: { number: 1 }, content: [{ id: 'a', size: 1 }, { id: 'b', size: 'NaN' }] });
    faults.add({ api: 'replication', path: '/bare', times: 1, fault: { kind: 'item', index: 0, field: 'size', value: null } });
    expect(await (await get('/bare')).body.json()).toEqual([{ id: 'a', size: null }, { id: 'b', size: 2 }]);
    expect(await (await get('/records')).body.json()).toEqual({ page: { number: 1 }, content: records });
    expect(records).toEqual([{ id: 'a', size: 1 }, { id: 'b', size: 2 }]);
  });

  it('ignores rules of another API', async () => {
    faults.add({ api: 'storage', fault: { kind: 'status', status: 500 } });
    expect((await get('/items')).statusCode).toBe(200);
  });

  it('malformed fault: 200 application/json whose body does not parse', async () => {
    faults.add({ api: 'replication', fault: { kind: 'malformed' } });
    const res = await get('/items');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const text = await res.body.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it('latency fault: answers normally after the delay, then without one once it is used up', async () => {
    // Timers are fake and move only when the test moves them; sockets and setImmediate stay real.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      faults.add({ api: 'replication', times: 1, fault: { kind: 'latency', ms: 1000 } });
      let answered = false;
      const delayed = get('/items').then((res) => {
        answered = true;
        return res.body.json();
      });
      while (stats.count('replication', '/items') === 0) await new Promise((resolve) => setImmediate(resolve));
      await jest.advanceTimersByTimeAsync(999);
      expect(answered).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(await delayed).toEqual({ items: [1, 2, 3] });
      // answered while the clock stands still: no delay left
      expect(await (await get('/items')).body.json()).toEqual({ items: [1, 2, 3] });
    } finally {
      jest.useRealTimers();
    }
  });

  it('reset fault: the client sees the connection die without an answer, and it is counted', async () => {
    faults.add({ api: 'replication', fault: { kind: 'reset' } });
    await expect(get('/items')).rejects.toThrow();
    expect(stats.count('replication', '/items')).toBe(1);
  });

  it('hang fault: only the client timeout ends it, and the server still closes at once', async () => {
    faults.add({ api: 'replication', fault: { kind: 'hang' } });
    await expect(get('/items', { headersTimeout: 300 })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    await server.close(); // resolves: a close() waiting on the hung request would never end
    expect(stats.count('replication', '/items')).toBe(1);
  });

  it('close() ends hanging requests and idle keep-alive connections promptly', async () => {
    await (await get('/items')).body.text(); // leaves an idle keep-alive socket
    faults.add({ api: 'replication', fault: { kind: 'hang' } });
    const hanging = get('/items').then(
      () => 'answered',
      () => 'failed',
    );
    while (stats.count('replication', '/items') < 2) await new Promise((resolve) => setImmediate(resolve));
    // Resolves, and ends the hanging request: without destroying sockets, close() would wait forever
    // for the hang (the client's own headers timeout is 300 s, beyond the test's time limit).
    await server.close();
    expect(await hanging).toBe('failed');
    await server.close(); // idempotent
  });

  it('replication: 429 with Retry-After when more requests than the limit are in flight', async () => {
    faults.replicationMaxConcurrent = 2;
    // the latency holds the first requests in flight long enough for all five to arrive, even on a slow machine
    faults.add({ api: 'replication', fault: { kind: 'latency', ms: 1500 } });
    const responses = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await get('/items');
        await res.body.text();
        return { status: res.statusCode, retryAfter: res.headers['retry-after'] };
      }),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(2);
    const rejected = responses.filter((r) => r.status === 429);
    expect(rejected).toHaveLength(3);
    for (const r of rejected) expect(Number(r.retryAfter)).toBeGreaterThan(0);
    // once the load is gone, requests pass again
    faults.clear();
    expect((await get('/items')).statusCode).toBe(200);
  });
});

describe('HTTPS with the generated certificate', () => {
  it('is trusted with the certificate as CA and rejected without it', async () => {
    const tls = await generateSelfSignedCert();
    const app = express();
    app.get('/ok', (_req, res) => {
      res.json({ ok: true });
    });
    const server = await startApiServer({ api: 'storage', app, tls, faults: new Faults(), stats: new Stats() });
    const trusting = new Agent({ connect: { ca: tls.cert } });
    const plain = new Agent();
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const res = await request(`${server.url}/ok`, { dispatcher: trusting });
      expect(await res.body.json()).toEqual({ ok: true });
      const viaLocalhost = await request(`${server.url.replace('127.0.0.1', 'localhost')}/ok`, { dispatcher: trusting });
      expect(viaLocalhost.statusCode).toBe(200);
      await viaLocalhost.body.text();
      await expect(request(`${server.url}/ok`, { dispatcher: plain })).rejects.toThrow(/self-signed|certificate/i);
    } finally {
      await server.close();
      await trusting.close();
      await plain.close();
    }
  });
});
