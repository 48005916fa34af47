/**
 * Traces of a collection: the spans of a management collector run that needs a
 * retry (503 + Retry-After) and a re-login (token expired mid-run), received by
 * the SDK's in-memory exporter; and the log lines of that run carry its ids.
 */
import { Writable } from 'node:stream';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { assetsCollector } from '../../src/collectors/management/assets';
import { createLogger } from '../../src/util/logger';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { recordSpans } from '../support/spans';

const spans = recordSpans();
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, size: { assets: 30, copiesPerAsset: 2 } });
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.faults.clear();
});

/** A runtime with the assets collector of one management target, logging JSON lines into `lines`. */
function runtimeWithLogs(lines: Array<Record<string, unknown>>): ExporterRuntime {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = parseConfig({
    targets: [{ name: 'backup', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password, pageSize: 10 }],
  });
  return new ExporterRuntime(config, { logger: createLogger('debug', sink), collectorsFor: () => [assetsCollector] });
}

const named = (name: string): ReadableSpan[] => spans.getFinishedSpans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('traces of a collector run', () => {
  it('nests every request, the re-login and the retried request under one collect span', async () => {
    // The 2nd assets page is refused once (503, Retry-After: 1); the token expires after 3 requests (the policies, two pages).
    sim.faults.add({ api: 'management', path: '/api/v2/assets', skip: 1, times: 1, fault: { kind: 'status', status: 503, retryAfterSeconds: 1 } });
    sim.faults.tokenExpiresAfterRequests = 3;
    const lines: Array<Record<string, unknown>> = [];
    const runtime = runtimeWithLogs(lines);
    try {
      expect(await runtime.runOnce()).toEqual(['success']);
    } finally {
      await runtime.stop();
    }

    const [collect, ...others] = named('collect assets');
    expect(others).toHaveLength(0);
    expect(collect).toBeDefined();
    const root = collect as ReadableSpan;
    expect(parentOf(root)).toBeUndefined();
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.attributes).toMatchObject({
      'dataprotect.target': 'backup',
      'dataprotect.collector': 'assets',
      'dataprotect.result': 'success',
      'dataprotect.items': sim.estate.management.assets().filter((asset) => !asset.deleted).length,
    });
    // Every request the run sent, once however often it was retried: one per request span (logout at stop excepted).
    const sent = spans.getFinishedSpans().filter((span) => span !== root && span.name !== 'POST /api/v2/logout');
    expect(root.attributes['dataprotect.requests']).toBe(sent.length);
    const traceId = root.spanContext().traceId;

    // Every request of the run (logout at stop excepted) is a direct child of the collect span.
    const requests = spans.getFinishedSpans().filter((span) => span !== root && span.name !== 'POST /api/v2/logout');
    expect(requests.length).toBeGreaterThanOrEqual(6);
    for (const span of requests) {
      expect(span.spanContext().traceId).toBe(traceId);
      expect(parentOf(span)).toBe(root.spanContext().spanId);
      expect(span.kind).toBe(SpanKind.CLIENT); // a request to another service
      expect(span.attributes['url.template']).toMatch(/^\/api\/v2\/[a-z-]+(\/\{id\}\/[a-z]+)?$/); // templates, never concrete ids
      expect(span.attributes['dataprotect.target']).toBe('backup');
    }

    // Login, three pages (the 2nd retried), a 401 on the 3rd, the re-login, the 3rd again: in that order.
    // Up to the last assets page: the requests after it (latest-copies, policies) expire the token again.
    const ordered = requests
      .filter((span) => span.name === 'POST /api/v2/login' || span.name === 'GET /api/v2/assets')
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
      .map((span) => `${span.name} ${span.attributes['http.response.status_code']}${span.attributes['dataprotect.retries'] ? ` retries=${span.attributes['dataprotect.retries']}` : ''}`);
    const sequence = ordered.slice(0, ordered.findLastIndex((entry) => entry.startsWith('GET /api/v2/assets')) + 1);
    expect(sequence).toEqual([
      'POST /api/v2/login 200',
      'GET /api/v2/assets 200',
      'GET /api/v2/assets 200 retries=1',
      'GET /api/v2/assets 401',
      'POST /api/v2/login 200',
      'GET /api/v2/assets 200',
    ]);
    const rejected = named('GET /api/v2/assets').find((span) => span.attributes['http.response.status_code'] === 401) as ReadableSpan;
    expect(rejected.status).toEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 401' });
    expect(rejected.attributes['http.request.method']).toBe('GET');
    const retried = named('GET /api/v2/assets').find((span) => span.attributes['dataprotect.retries'] === 1) as ReadableSpan;
    expect(retried.status.code).not.toBe(SpanStatusCode.ERROR);
    // The retry waited for Retry-After (1 s) inside the request span.
    const [seconds, nanos] = retried.duration;
    expect(seconds * 1000 + nanos / 1e6).toBeGreaterThanOrEqual(990);

    // The run's log lines carry its trace id; the retry's line the retried request's span id.
    const done = lines.find((line) => line.msg === 'collection succeeded');
    expect(done).toMatchObject({ trace_id: traceId, span_id: root.spanContext().spanId, collector: 'assets' });
    const retry = lines.find((line) => line.msg === 'retrying request');
    expect(retry).toMatchObject({ trace_id: traceId, span_id: retried.spanContext().spanId, attempt: 1, status: 503 });
  });

  it('records the error on the collect span and on the failing request spans when a run fails', async () => {
    sim.faults.add({ api: 'management', path: '/api/v2/assets', fault: { kind: 'status', status: 500 } });
    const lines: Array<Record<string, unknown>> = [];
    const runtime = runtimeWithLogs(lines);
    try {
      expect(await runtime.runOnce()).toEqual(['failure']);
    } finally {
      await runtime.stop();
    }
    const [root] = named('collect assets');
    expect(root).toBeDefined();
    expect(root!.status.code).toBe(SpanStatusCode.ERROR);
    expect(root!.status.message).toMatch(/HTTP 500/);
    expect(root!.attributes).toMatchObject({ 'dataprotect.result': 'failure' });
    // A failed run tells how far it got: the requests it sent (login and the refused page at least), as a successful one does.
    const sent = spans.getFinishedSpans().filter((span) => parentOf(span) === root!.spanContext().spanId);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(root!.attributes['dataprotect.requests']).toBe(sent.length);
    expect(String(root!.attributes['dataprotect.error'])).toMatch(/HTTP 500/);
    const exception = root!.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toMatch(/HTTP 500/);
    const failed = named('GET /api/v2/assets');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const span of failed) {
      expect(parentOf(span)).toBe(root!.spanContext().spanId);
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 500' });
    }
    const warning = lines.find((line) => line.msg === 'collection failed');
    expect(warning).toMatchObject({ trace_id: root!.spanContext().traceId });
  });

  it('gives each run a trace of its own', async () => {
    const runtime = runtimeWithLogs([]);
    try {
      await runtime.runOnce();
      await runtime.runOnce();
    } finally {
      await runtime.stop();
    }
    const runs = named('collect assets');
    expect(runs).toHaveLength(2);
    expect(runs.map(parentOf)).toEqual([undefined, undefined]);
    expect(runs[0]!.spanContext().traceId).not.toBe(runs[1]!.spanContext().traceId);
  });
});
