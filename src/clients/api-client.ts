import type { Logger } from 'pino';
import type { TargetConfig } from '../config/load';
import { HttpCore, type HttpCoreOptions, type HttpRequest, type HttpResponse, type RequestObserver } from './http';
import type { ResponseBudget } from './response-budget';
import { errorForStatus, parseJson } from './response';
import { Redactor } from '../util/secret';

/** What every API client needs besides its target's configuration. */
export interface ClientDeps {
  logger: Logger;
  observer?: RequestObserver;
  /** the process-wide bound on buffered response bytes, shared by every target's client */
  responseBudget?: ResponseBudget;
  /** retry pacing overrides (tests use short backoffs) */
  http?: Pick<HttpCoreOptions, 'backoffBaseMs' | 'maxRetryWaitMs'>;
}

/** A GET: the path with its query string, the endpoint template, the caller's signal. */
export type GetRequest = Omit<HttpRequest, 'method' | 'body'>;

/** The parsed JSON body of a 2xx answer, and its status. */
export interface JsonAnswer {
  body: unknown;
  status: number;
}

/**
 * What the three API clients share: the target's HTTP core (TLS, time limits,
 * retries, body bounds, the target's credentials removed from error bodies),
 * the target's credentials on every request (`send`, the one thing each API
 * does its own way), JSON GETs judged one way, and closing.
 */
export abstract class ApiClient {
  protected readonly http: HttpCore;

  constructor(
    readonly target: TargetConfig,
    protected readonly deps: ClientDeps,
  ) {
    this.http = new HttpCore({
      target: target.name,
      baseUrl: target.url,
      tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
      requestTimeoutMs: target.requestTimeout,
      maxConcurrency: target.maxConcurrency,
      maxAttempts: target.maxAttempts,
      maxResponseBytes: target.maxResponseBytes,
      observer: deps.observer,
      responseBudget: deps.responseBudget,
      logger: deps.logger,
      // The password, and the Basic header's `user:password` (whose base64 is what the header carries).
      redactor: new Redactor([target.password.reveal(), `${target.username}:${target.password.reveal()}`]),
      ...deps.http,
    });
  }

  /** Sends a request with the target's credentials. */
  protected abstract send(request: HttpRequest): Promise<HttpResponse>;

  /** A GET with the target's credentials: the parsed JSON of a 2xx answer, an ApiError otherwise. */
  async fetchJson(request: GetRequest): Promise<JsonAnswer> {
    const response = await this.send({ method: 'GET', ...request });
    if (response.status < 200 || response.status >= 300) throw errorForStatus(response, request.endpoint);
    return { body: parseJson(response, request.endpoint), status: response.status };
  }

  /** Closes the connections; a client with a session ends it first. Never throws. */
  async close(): Promise<void> {
    await this.http.close();
  }
}
