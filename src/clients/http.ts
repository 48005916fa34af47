import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ApiError } from './errors';
import { readBody } from './body';
import type { ResponseBudget } from './response-budget';
import { retryDelay, type RetryPolicy } from './retry';
import { Redactor } from '../util/secret';
import { settlesWithin } from '../util/settles-within';
import { sleep } from '../util/sleep';
import { LinkedSignal } from '../util/linked-signal';
import { countAnswer, countRequest } from './run-requests';

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
  /** attempts per request on 429, 503, 502, 504 and network errors (retry.ts) */
  maxAttempts: number;
  maxRetryWaitMs?: number;
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
  /** false for a request the server may not see twice (a serial paging token is spent by its first use): see retryDelay. Default true. */
  idempotent?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const tracer = trace.getTracer('dataprotect-exporter');
/** How long closing a client waits for its requests in flight (a logout) before cutting them off. */
const CLOSE_GRACE_MS = 2_000;

/** Calls a request's `onWire` when undici writes it to a connection: its time limit starts there, not in the pool's queue. */
const onWireHook: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
  // compose() hands each dispatch a handler of its own: overriding its method touches no other request
  const requestStart = handler.onRequestStart?.bind(handler);
  handler.onRequestStart = (controller, context) => {
    (options as { onWire?: () => void }).onWire?.();
    requestStart?.(controller, context);
  };
  return dispatch(options, handler);
};

/** The one place that talks HTTP: a Pool per origin (its connections the target's concurrency limit), time limits, retries and spans. */
export class HttpCore {
  readonly target: string;
  /** the target's credentials: the token sessions add the tokens they are issued */
  readonly redactor: Redactor;
  private readonly pool: Pool;
  /** the pool, telling each request when a connection takes it */
  private readonly dispatcher: Dispatcher;
  private readonly options: RetryPolicy & HttpCoreOptions;
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
      connect: { ...(options.tls?.ca ? { ca: options.tls.ca } : {}), rejectUnauthorized: !options.tls?.insecureSkipVerify },
    });
    this.dispatcher = this.pool.compose(onWireHook);
  }

  /** Sends the request, retrying transient failures. Resolves with any final status; the API client judges it. */
  async request(request: HttpRequest): Promise<HttpResponse> {
    countRequest();
    return tracer.startActiveSpan(`${request.method} ${request.endpoint}`, { kind: SpanKind.CLIENT }, async (span) => {
      span.setAttributes({ 'http.request.method': request.method, 'url.template': request.endpoint, 'dataprotect.target': this.target });
      try {
        const answer = await this.requestWithRetries(request, span);
        // An error body is quoted in errors (logs, the landing page, spans) and may echo the request.
        const response = answer.status >= 200 && answer.status < 300 ? answer : { ...answer, text: this.redactor.redactBody(answer.text) };
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
      const wait = retryDelay({ ...response, failure }, attempt, waited, request.idempotent !== false, this.options);
      if (wait === undefined) {
        if (failure) throw failure;
        return response as HttpResponse;
      }
      span.setAttribute('dataprotect.retries', attempt);
      this.options.logger?.debug(
        { endpoint: request.endpoint, attempt, delayMs: Math.round(wait), status: response?.status, error: failure?.message },
        'retrying request',
      );
      waited += wait;
      await sleep(wait, request.signal).catch(() => {
        throw new ApiError('aborted', request.endpoint, 'aborted by the collector time limit while waiting to retry');
      });
    }
  }

  /** One attempt, its time limit from when a connection takes it, linked to the caller's signal, recorded in the request metrics. */
  private async send(request: HttpRequest): Promise<HttpResponse> {
    const started = performance.now();
    const deadline = new LinkedSignal(request.signal);
    let code = 'error';
    try {
      const json = request.body !== undefined;
      const response = await this.dispatcher.request({
        method: request.method,
        path: this.prefix + request.path,
        headers: { accept: 'application/json', ...request.headers, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(request.body) : undefined,
        signal: deadline.signal,
        onWire: () => deadline.startTimer(this.options.requestTimeoutMs),
      } as Dispatcher.RequestOptions);
      code = String(response.statusCode);
      const text = await readBody(response, request.endpoint, this.options.maxResponseBytes, this.options.responseBudget);
      countAnswer();
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      throw this.attemptError(error, request, deadline);
    } finally {
      deadline.dispose();
      const durationSeconds = (performance.now() - started) / 1000;
      this.options.observer?.onRequest({ target: this.target, endpoint: request.endpoint, method: request.method, code, durationSeconds });
    }
  }

  /** What ended an attempt: the caller's signal, the attempt's time limit, or the network. */
  private attemptError(error: unknown, request: HttpRequest, deadline: LinkedSignal): ApiError {
    if (error instanceof ApiError) return error;
    const failed = (kind: ApiError['kind'], why: string): ApiError =>
      new ApiError(kind, request.endpoint, why, undefined, { cause: error });
    if (request.signal?.aborted) return failed('aborted', 'aborted by the collector time limit');
    if (deadline.timedOut) return failed('timeout', `no answer within ${this.options.requestTimeoutMs} ms`);
    return failed('network', describeNetworkError(error));
  }

  /** Lets requests in flight finish for CLOSE_GRACE_MS, then cuts them off: a source that hangs cannot hold a stop or a reload. */
  async close(): Promise<void> {
    if (!(await settlesWithin(this.pool.close(), CLOSE_GRACE_MS))) await this.pool.destroy().catch(() => undefined);
  }
}

function describeNetworkError(error: unknown): string {
  if (error instanceof undiciErrors.UndiciError) return `${error.code ?? error.name}: ${error.message}`;
  const err = error as NodeJS.ErrnoException;
  const code = err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
  return code ? `${code}: ${err.message}` : err.message ?? String(error);
}
