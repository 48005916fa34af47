/**
 * The shared HTTP core against a scripted loopback server: which failures are
 * retried and how long it waits, time limits, aborts, the body size limit and
 * what the request observer sees.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpCore, type HttpCoreOptions } from '../../src/clients/http';
import type { ApiError } from '../../src/clients/errors';
import { PeakBudget, writeEndlessBody as endless } from '../support/endless-body';
import { recordSleeps } from '../support/sleeps';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let base: string;
let script: Step[] = [];
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const step = script[Math.min(received, script.length - 1)];
    received += 1;
    step?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Step => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const reset: Step = (req) => req.socket.destroy();
const hang: Step = () => undefined;

function core(options: Partial<HttpCoreOptions> = {}) {
  const events: Array<{ code: string; endpoint: string }> = [];
  const http = new HttpCore({
    target: 't',
    baseUrl: base,
    requestTimeoutMs: 2000,
    maxConcurrency: 2,
    maxAttempts: 3,
    backoffBaseMs: 5,
    maxResponseBytes: 1024 * 1024,
    observer: { onRequest: (event) => events.push({ code: event.code, endpoint: event.endpoint }) },
    ...options,
  });
  return { http, events };
}

function start(...steps: Step[]): void {
  script = steps;
  received = 0;
}

const get = { method: 'GET' as const, path: '/api/x/42', endpoint: '/api/x/{id}' };

describe('HttpCore', () => {
  it('retries a 503 after its Retry-After and records each attempt under the path template', async () => {
    start(json(503, { reason: 'busy' }, { 'retry-after': '1' }), json(200, { ok: true }));
    const { http, events } = core();
    const sleeps = recordSleeps();
    const response = await http.request(get).finally(() => sleeps.restore());
    expect(response.status).toBe(200);
    expect(sleeps.delays).toEqual([1000]); // the first backoff step is under 10 ms: the whole second is Retry-After's
    expect(events).toEqual([
      { code: '503', endpoint: '/api/x/{id}' },
      { code: '200', endpoint: '/api/x/{id}' },
    ]);
    await http.close();
  });

  it('gives back the last 429 once the attempts are spent, and never retries another 4xx', async () => {
    start(json(429, {}));
    const { http } = core();
    expect((await http.request(get)).status).toBe(429);
    expect(received).toBe(3);
    start(json(400, { reason: 'bad filter' }));
    expect((await http.request(get)).status).toBe(400);
    expect(received).toBe(1);
    await http.close();
  });

  it('does not wait for a Retry-After longer than its retry budget', async () => {
    start(json(503, {}, { 'retry-after': '3600' }), json(200, {}));
    const { http } = core({ maxRetryWaitMs: 2000 });
    const sleeps = recordSleeps();
    expect((await http.request(get).finally(() => sleeps.restore())).status).toBe(503);
    expect(sleeps.delays).toEqual([]);
    expect(received).toBe(1);
    await http.close();
  });

  it('retries a reset connection, but not for a request the server may already have processed', async () => {
    start(reset, json(200, { ok: true }));
    const { http, events } = core();
    expect((await http.request(get)).status).toBe(200);
    expect(events.map((e) => e.code)).toEqual(['error', '200']);
    start(reset, json(200, { ok: true }));
    const error = (await http.request({ ...get, idempotent: false }).catch((e: unknown) => e)) as ApiError;
    expect(error.kind).toBe('network');
    expect(received).toBe(1);
    await http.close();
  });

  it('ends a hanging answer at the per-attempt time limit, and a caller abort at once without retrying', async () => {
    start(hang);
    const { http } = core({ requestTimeoutMs: 150, maxAttempts: 2 });
    const error = (await http.request(get).catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ kind: 'timeout', unreachable: true });
    expect(error.message).toBe('/api/x/{id}: no answer within 150 ms');
    expect(received).toBe(2);

    start(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('collector time limit')), 100);
    const aborted = (await http.request({ ...get, signal: controller.signal }).catch((e: unknown) => e)) as ApiError;
    expect(aborted).toMatchObject({ kind: 'aborted', unreachable: false });
    expect(received).toBe(1);
    await http.close();
  });

  it("starts an attempt's time limit when a connection takes it, not while it waits for one", async () => {
    // each answer takes 400 ms of a 1,000 ms limit; five requests on one connection wait up to 1,600 ms for it
    start((req, res) => void setTimeout(() => json(200, {})(req, res), 400));
    const { http, events } = core({ requestTimeoutMs: 1000, maxConcurrency: 1, maxAttempts: 1 });
    const answers = await Promise.allSettled(Array.from({ length: 5 }, () => http.request(get)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill('fulfilled'));
    expect(events.map((event) => event.code)).toEqual(Array(5).fill('200'));
    await http.close();
  });

  it('refuses a body above the size limit, announced or streamed, as a protocol error', async () => {
    const { http } = core({ maxResponseBytes: 1000 });
    start(json(200, { data: 'x'.repeat(2000) }));
    await expect(http.request(get)).rejects.toMatchObject({ kind: 'protocol', message: '/api/x/{id}: response body larger than 1000 B (maxResponseBytes)' });
    expect(received).toBe(1); // not asked again: the same body would come back
    start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no content-length
      res.write('['.padEnd(600, ' '));
      res.end(']'.padStart(600, ' '));
    });
    await expect(http.request(get)).rejects.toMatchObject({ kind: 'protocol' });
    start(json(200, { data: 'small' }));
    expect((await http.request(get)).text).toBe('{"data":"small"}');
    await http.close();
  });

  it('bounds the bytes of bodies that never end across clients, refusing each once and freeing every byte', async () => {
    start(endless);
    const budget = new PeakBudget(256 * 1024);
    // A time limit no loaded machine reaches: only the budget and the cap may end these bodies.
    const clients = [0, 1, 2].map(() => core({ maxResponseBytes: 1024 * 1024, maxConcurrency: 4, requestTimeoutMs: 120_000, responseBudget: budget }).http);
    const requests = clients.flatMap((http) => [0, 1, 2, 3].map(() => http.request(get).then(() => undefined, (e: unknown) => e as ApiError)));
    const errors = await Promise.all(requests);
    for (const error of errors) {
      expect(error).toMatchObject({ kind: 'protocol' });
      expect(error?.message).toMatch(/^\/api\/x\/\{id\}: response body (stopped at .* buffered across all targets \(maxBufferedResponseBytes\)|larger than 1 MiB)/);
    }
    expect(errors.some((error) => error?.message.includes('maxBufferedResponseBytes'))).toBe(true);
    expect(received).toBe(12); // each refused once, never asked again
    expect(budget.peak).toBeLessThanOrEqual(256 * 1024);
    expect(budget.usedBytes).toBe(0);
    await Promise.all(clients.map((http) => http.close()));
  });

  it('reads legitimate bodies whole while an endless one fills the budget', async () => {
    start((req, res) => (req.url?.includes('endless') ? endless(req, res) : json(200, { items: 'y'.repeat(50 * 1024) })(req, res)));
    const budget = new PeakBudget(256 * 1024);
    const hostile = core({ maxResponseBytes: 1024 * 1024, requestTimeoutMs: 120_000, responseBudget: budget }).http;
    const healthy = core({ maxResponseBytes: 1024 * 1024, requestTimeoutMs: 120_000, responseBudget: budget }).http;
    const [refused, ...pages] = await Promise.all([
      hostile.request({ ...get, path: '/api/x/endless' }).catch((e: unknown) => e as ApiError),
      healthy.request(get),
      healthy.request(get),
    ]);
    expect((refused as ApiError).message).toContain('maxBufferedResponseBytes');
    expect(pages.map((response) => (response as { text: string }).text.length)).toEqual([51_212, 51_212]);
    expect(budget.peak).toBeLessThanOrEqual(256 * 1024);
    expect(budget.usedBytes).toBe(0);
    await Promise.all([hostile.close(), healthy.close()]);
  });
});
