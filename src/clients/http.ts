import { Pool, errors as undiciErrors } from 'undici';
import type { Dispatcher } from 'undici';
import { trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ApiError } from './errors';
import type { ResponseBudget } from './response-budget';
import { formatBytes } from '../util/bytes';
import { Redactor } from '../util/secret';
import { sleep } from '../util/sleep';
import { countRequest } from './run-requests';

/** Receives one event per HTTP attempt; the exporter turns them into dataprotect_api_* metrics. */
export interface RequestObserver {
  onRequest(event: { target: string; endpoint: string; method: string; code: string; durationSeconds: number }): void;
}

export interface HttpCoreOptions {
  /** the target's configured name: a label on every request metric */
  target: string;
  baseUrl: string;
  tls?: { ca?: string; insecureSkipVerify?: boolean };
  requestTimeoutMs: number;
  maxConcurrency: number;
  /** attempts per request on 429, 503, 502, 504 and network errors */
  maxAttempts: number;
  /** total time one request may spend waiting between attempts */
  maxRetryWaitMs?: number;
  /** first backoff step; doubles each attempt, with full jitter */
  backoffBaseMs?: number;
  /** largest response body read; a larger one is a `protocol` error, not an exhausted heap */
  maxResponseBytes: number;
  /** the bytes of response bodies buffered at once across all targets */
  responseBudget?: ResponseBudget;
  observer?: RequestObserver;
  logger?: Logger;
  /** the target's credentials, removed from the body of every answer that is not a success */
  redactor?: Redactor;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** the concrete path with its query string, e.g. /api/v2/assets/abc/copies?page=2 */
  path: string;
  /** the path template used in metrics and spans, e.g. /api/v2/assets/{id}/copies */
  endpoint: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /**
   * false for a request that the server may not see twice (a serial paging
   * token is consumed by its first use): it is then retried only when the
   * server refused it outright (429, 503), never after a network error,
   * timeout, 502 or 504, after which it may already have been processed.
   * Default true.
   */
  idempotent?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export const RETRIABLE_STATUS = new Set([429, 502, 503, 504]);
/** statuses that mean the server refused the request without processing it */
const REFUSED_STATUS = new Set([429, 503]);
const tracer = trace.getTracer('dataprotect-exporter');
/** How long closing a client waits for its requests in flight (a logout) before cutting them off. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The one place that talks HTTP: an undici Pool per origin (its connection
 * count is the per-target concurrency limit), a time limit per attempt, the
 * caller's AbortSignal, retries with exponential backoff and full jitter on
 * 429/502/503/504 and network errors honouring Retry-After, request metrics
 * and a span per request. Authentication and paging live in the API clients.
 */
export class HttpCore {
  readonly target: string;
  /** the target's credentials: the token sessions add the tokens they are issued */
  readonly redactor: Redactor;
  private readonly pool: Pool;
  private readonly options: Required<Pick<HttpCoreOptions, 'maxRetryWaitMs' | 'backoffBaseMs'>> & HttpCoreOptions;
  /** The base URL's path prefix (e.g. "" or "/dp"), prepended to every request path (parsed once, not per request). */
  private readonly prefix: string;

  constructor(options: HttpCoreOptions) {
    this.options = { maxRetryWaitMs: 60_000, backoffBaseMs: 500, ...options };
    this.target = options.target;
    this.redactor = options.redactor ?? new Redactor([]);
    const url = new URL(options.baseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.maxConcurrency,
      pipelining: 1,
      connect: {
        ...(options.tls?.ca ? { ca: options.tls.ca } : {}),
        rejectUnauthorized: !options.tls?.insecureSkipVerify,
      },
    });
  }

  /** Sends the request, retrying transient failures. Resolves with any final status; the API client judges it. */
  async request(request: HttpRequest): Promise<HttpResponse> {
    countRequest();
    return tracer.startActiveSpan(`${request.method} ${request.endpoint}`, { kind: SpanKind.CLIENT }, async (span) => {
      span.setAttributes({ 'http.request.method': request.method, 'url.template': request.endpoint, 'dataprotect.target': this.target });
      try {
        const answer = await this.requestWithRetries(request, span);
        // An error body is quoted in errors (logs, the landing page, spans) and may echo the request.
        const response = answer.status >= 200 && answer.status < 300 ? answer : { ...answer, text: this.redactor.redact(answer.text) };
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${response.status}` });
        return response;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async requestWithRetries(request: HttpRequest, span: Span): Promise<HttpResponse> {
    const { maxAttempts, maxRetryWaitMs, backoffBaseMs } = this.options;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      let response: HttpResponse | undefined;
      let failure: ApiError | undefined;
      try {
        response = await this.send(request);
      } catch (error) {
        failure = error as ApiError;
        if (failure.kind === 'aborted') throw failure;
      }
      // A body refused for its size is no passing fault: asking again would read it again.
      const transientFailure = failure !== undefined && (failure.kind === 'network' || failure.kind === 'timeout');
      const retriable =
        request.idempotent === false
          ? response !== undefined && REFUSED_STATUS.has(response.status)
          : transientFailure || (response !== undefined && RETRIABLE_STATUS.has(response.status));
      const backoff = Math.random() * backoffBaseMs * 2 ** (attempt - 1);
      const retryAfter = response ? parseRetryAfter(response.headers['retry-after']) : undefined;
      const delay = Math.max(backoff, retryAfter ?? 0);
      if (!retriable || attempt >= maxAttempts || waited + delay > maxRetryWaitMs) {
        if (failure) throw failure;
        return response as HttpResponse;
      }
      span.setAttribute('dataprotect.retries', attempt);
      this.options.logger?.debug(
        { endpoint: request.endpoint, attempt, delayMs: Math.round(delay), status: response?.status, error: failure?.message },
        'retrying request',
      );
      waited += delay;
      try {
        await sleep(delay, request.signal);
      } catch {
        throw new ApiError('aborted', request.endpoint, 'aborted by the collector time limit while waiting to retry');
      }
    }
  }

  /** One attempt, with its own time limit, recorded in the request metrics. */
  private async send(request: HttpRequest): Promise<HttpResponse> {
    const started = performance.now();
    // One controller, a timer and a listener on the caller's signal, released when the attempt
    // ends: AbortSignal.timeout plus AbortSignal.any per request is a measurable share of the
    // CPU (and garbage) of a cold round of 10,000 requests.
    const attempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort(new DOMException('request timed out', 'TimeoutError'));
    }, this.options.requestTimeoutMs);
    const abortFromCaller = (): void => attempt.abort(request.signal?.reason);
    if (request.signal?.aborted) abortFromCaller();
    else request.signal?.addEventListener('abort', abortFromCaller, { once: true });
    const signal = attempt.signal;
    let code = 'error';
    try {
      const json = request.body !== undefined;
      const response = await this.pool.request({
        method: request.method,
        path: this.prefix + request.path,
        headers: { accept: 'application/json', ...request.headers, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(request.body) : undefined,
        signal,
      } as Dispatcher.RequestOptions);
      code = String(response.statusCode);
      const text = await this.readBody(response, request.endpoint);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (request.signal?.aborted) {
        throw new ApiError('aborted', request.endpoint, 'aborted by the collector time limit', undefined, { cause: error });
      }
      if (timedOut) {
        throw new ApiError('timeout', request.endpoint, `no answer within ${this.options.requestTimeoutMs} ms`, undefined, { cause: error });
      }
      throw new ApiError('network', request.endpoint, describeNetworkError(error), undefined, { cause: error });
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', abortFromCaller);
      this.options.observer?.onRequest({
        target: this.target,
        endpoint: request.endpoint,
        method: request.method,
        code,
        durationSeconds: (performance.now() - started) / 1000,
      });
    }
  }

  /**
   * The body as text, refusing one larger than maxResponseBytes (announced or
   * actual) and one the process-wide response budget takes back, before either
   * fills the memory.
   */
  private async readBody(response: Dispatcher.ResponseData, endpoint: string): Promise<string> {
    const limit = this.options.maxResponseBytes;
    const budget = this.options.responseBudget;
    const refusal = (reason: string): ApiError => new ApiError('protocol', endpoint, reason, response.statusCode);
    const tooLarge = (): ApiError => refusal(`response body larger than ${formatBytes(limit)} (maxResponseBytes)`);
    if (Number(response.headers['content-length'] ?? 0) > limit) {
      response.body.destroy();
      throw tooLarge();
    }
    const body = response.body;
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const settle = (error?: unknown, text?: string): void => {
        if (settled) return;
        settled = true;
        budgeted?.release();
        if (error === undefined) return resolve(text as string);
        body.destroy();
        reject(error);
      };
      const refusedByBudget = (): void =>
        settle(refusal(`response body stopped at ${formatBytes(size)}, the largest of the bodies filling the ${formatBytes(budget?.limitBytes ?? 0)} buffered across all targets (maxBufferedResponseBytes)`));
      const budgeted = budget?.open(refusedByBudget);
      // Event listeners rather than `for await`: no promise per chunk.
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (size + chunk.length > limit) return settle(tooLarge());
        if (budgeted && !budgeted.take(chunk.length)) return refusedByBudget();
        size += chunk.length;
        chunks.push(chunk);
      });
      body.once('end', () => settle(undefined, Buffer.concat(chunks, size).toString('utf8')));
      body.once('error', (error) => settle(error));
    });
  }

  /** Lets requests in flight finish for `graceMs`, then cuts them off: a source that hangs cannot hold a stop or a reload. */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const closed = this.pool.close().then(() => true, () => false);
    const finished = await Promise.race([closed, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)))]);
    clearTimeout(timer);
    if (!finished) await this.pool.destroy().catch(() => undefined);
  }
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeNetworkError(error: unknown): string {
  if (error instanceof undiciErrors.UndiciError) return `${error.code ?? error.name}: ${error.message}`;
  const err = error as NodeJS.ErrnoException;
  const code = err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
  return code ? `${code}: ${err.message}` : err.message ?? String(error);
}

/**
 * Parses a JSON body; a malformed body becomes a bounded `parse` error, never
 * a crash. The parser's message is quoted without the piece of the body it
 * cites, which could be anything the body holds.
 */
export function parseJson(response: HttpResponse, endpoint: string): unknown {
  try {
    return JSON.parse(response.text);
  } catch (error) {
    const problem = (error as Error).message.replace(/, ".*" is not valid JSON$/s, ' (not valid JSON)').slice(0, 120);
    throw new ApiError('parse', endpoint, `malformed JSON in a ${response.text.length}-byte body: ${problem}`, response.status);
  }
}
