import type { Logger } from 'pino';
import type { TargetConfig } from '../config/load';
import { HttpCore, type HttpCoreOptions, type HttpRequest, type HttpResponse, type RequestObserver } from './http';
import type { ResponseBudget } from './response-budget';
import { errorForStatus, loginRejected, parseJson } from './response';
import { TokenSession, type IssuedToken, type TokenApi } from './token-session';
import { Redactor } from '../util/secret';

/** Logging out is a courtesy at shutdown: it must not hold the exit up. */
const LOGOUT_TIMEOUT_MS = 5_000;

/** What every API client needs besides its target's configuration. */
export interface ClientDeps {
  logger: Logger;
  observer?: RequestObserver;
  /** the process-wide bound on buffered response bytes, shared by every target's client */
  responseBudget?: ResponseBudget;
  /** retry pacing overrides (tests use short backoffs) */
  http?: Pick<HttpCoreOptions, 'backoffBaseMs' | 'maxRetryWaitMs'>;
}

export type GetRequest = Omit<HttpRequest, 'method' | 'body'>;

/** The parsed JSON body of a 2xx answer, and its status. */
export interface JsonAnswer {
  body: unknown;
  status: number;
}

/** What the three API clients share: the HTTP core, credentials on every request (a token session or HTTP Basic), JSON GETs, closing. */
export class ApiClient {
  protected readonly http: HttpCore;
  /** the login session of a token API; the replication plugin has none */
  private readonly session: TokenSession | undefined;

  constructor(
    readonly target: TargetConfig,
    protected readonly deps: ClientDeps,
    private readonly tokenApi?: TokenApi,
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
    if (tokenApi) {
      const login = (): Promise<IssuedToken> => this.logIn(tokenApi);
      this.session = new TokenSession({ login, loginEndpoint: tokenApi.loginPath, logger: deps.logger, redactor: this.http.redactor });
    }
  }

  /** Sends with the session's token (see TokenSession.send for the 401), or with HTTP Basic. */
  private send(request: HttpRequest): Promise<HttpResponse> {
    const { session, tokenApi } = this;
    const sendWith = (headers: Record<string, string>) => this.http.request({ ...request, headers: { ...request.headers, ...headers } });
    if (session && tokenApi) return session.send(request.endpoint, request.signal, (token) => sendWith(tokenApi.carry(token)));
    // Built per request, so the revealed password is never kept in a field that could be logged.
    const credentials = `${this.target.username}:${this.target.password.reveal()}`;
    return sendWith({ authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` });
  }

  /** A GET with the target's credentials: the parsed JSON of a 2xx answer, an ApiError otherwise. */
  async fetchJson(request: GetRequest): Promise<JsonAnswer> {
    const response = await this.send({ method: 'GET', ...request });
    if (response.status < 200 || response.status >= 300) throw errorForStatus(response, request.endpoint);
    return { body: parseJson(response, request.endpoint), status: response.status };
  }

  /** Closes the connections; a client with a session ends it first. Never throws. */
  async close(): Promise<void> {
    // One LOGOUT_TIMEOUT_MS for the login still running (whose token is logged out too) and the logout.
    const signal = AbortSignal.timeout(LOGOUT_TIMEOUT_MS);
    const token = await this.session?.release(signal);
    if (token && this.tokenApi) await this.logOut(this.tokenApi, token, signal);
    await this.http.close();
  }

  /** Ends the session on the server, bounded by `signal`: a failed logout is only logged. */
  private async logOut(api: TokenApi, token: string, signal: AbortSignal): Promise<void> {
    try {
      const response = await this.http.request({ ...api.logout, endpoint: api.logout.path, headers: api.carry(token), signal });
      if (response.status >= 300 && response.status !== 401) this.deps.logger.debug({ status: response.status }, 'logout not accepted');
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'logout failed');
    }
  }

  /** A refused login (401, 403) is `auth` naming the user; another failure says nothing about the credentials. */
  private async logIn(api: TokenApi): Promise<IssuedToken> {
    const endpoint = api.loginPath;
    const { username, password } = this.target;
    const response = await this.http.request({ method: 'POST', endpoint, path: endpoint, body: { username, password: password.reveal() } });
    if (response.status === 401 || response.status === 403) throw loginRejected(response, endpoint, username);
    if (response.status < 200 || response.status >= 300) throw errorForStatus(response, endpoint, 'login');
    return api.issued(response);
  }
}
