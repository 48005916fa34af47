/**
 * The login session of a token API (the management bearer token, the storage X-DD-AUTH-TOKEN): one login shared by every
 * request of the target, renewed shortly before the token's announced end, replaced once on 401, ended by a logout when the
 * client closes. Callers that need a token while a login runs wait for that same login: no login storm.
 */
import type { Logger } from 'pino';
import { ApiError } from './errors';
import type { HttpRequest, HttpResponse } from './http';
import { errorForStatus } from './response';
import { sharedFlight } from './run-requests';
import type { Redactor } from '../util/secret';
import { SingleFlight } from '../util/single-flight';

export interface IssuedToken {
  readonly value: string;
  /** the lifetime the API announced; undefined: the token is used until the API refuses it */
  readonly expiresInSeconds: number | undefined;
}

export interface TokenSessionOptions {
  readonly login: () => Promise<IssuedToken>;
  /** named by the error of a caller that stops waiting for the login */
  readonly loginEndpoint: string;
  readonly logger?: Logger;
  /** told every token issued, so that an answer quoting one has it removed */
  readonly redactor?: Redactor;
  /** local monotonic milliseconds; injected by tests */
  readonly clock?: () => number;
}

/** Renew this long before the token's end (at most), so a request never races the expiry. */
const RENEW_MARGIN_MS = 60_000;

interface HeldToken {
  readonly value: string;
  /** clock time from which the token is renewed before use */
  readonly renewAt: number;
}

export class TokenSession {
  private current: HeldToken | undefined;
  private readonly login = new SingleFlight(() => this.logIn());
  private readonly clock: () => number;

  constructor(private readonly options: TokenSessionOptions) {
    this.clock = options.clock ?? (() => performance.now());
  }

  /** The current token, a running login's, or a new login's; the signal ends this caller's wait, not the login others may want. */
  async get(signal?: AbortSignal): Promise<string> {
    const current = this.current;
    if (current && this.clock() < current.renewAt) return current.value;
    const waitEnded = (): ApiError =>
      new ApiError('aborted', this.options.loginEndpoint, 'aborted by the collector time limit while waiting for the login');
    // A login another request started is this run's wait on the source too (run-requests.ts): its run may have ended long ago.
    return (await sharedFlight(this.login, signal, waitEnded)).value;
  }

  /** The API refused `token` (401): forget it, unless a newer token already replaced it (another request saw the same 401 first). */
  invalidate(token: string): void {
    if (this.current?.value === token) this.current = undefined;
  }

  /** Sends with the token; on 401, once more with a fresh one (one login shared with concurrent requests): never a login loop. */
  async send(endpoint: string, signal: AbortSignal | undefined, request: (token: string) => Promise<HttpResponse>): Promise<HttpResponse> {
    const token = await this.get(signal);
    const response = await request(token);
    if (response.status !== 401) return response;
    this.invalidate(token);
    this.options.logger?.debug({ endpoint }, 'token refused: logging in again');
    const fresh = await this.get(signal);
    const again = await request(fresh);
    if (again.status !== 401) return again;
    this.invalidate(fresh);
    throw errorForStatus(again, endpoint, '401 for a freshly issued token');
  }

  /**
   * Forgets the token and returns it for a logout on the server: after a running login, whose token would otherwise outlive it, but
   * only until `signal` aborts (the logout's time limit): a login the source never answers must not hold a stop.
   */
  async release(signal?: AbortSignal): Promise<string | undefined> {
    await this.login.settled(signal);
    const token = this.current?.value;
    this.current = undefined;
    return token;
  }

  private async logIn(): Promise<HeldToken> {
    const started = this.clock();
    const { value, expiresInSeconds } = await this.options.login();
    this.options.redactor?.addToken(value);
    // Renewed a tenth of its life early, at most RENEW_MARGIN_MS; a token without a lifetime, never.
    const ttlMs = expiresInSeconds === undefined ? Infinity : expiresInSeconds * 1000;
    this.current = { value, renewAt: started + ttlMs - Math.min(RENEW_MARGIN_MS, ttlMs * 0.1) };
    return this.current;
  }
}

/** How a token API hands out a token (`POST {username, password}` to `loginPath`), carries it and ends its session. */
export interface TokenApi {
  readonly loginPath: string;
  readonly logout: Pick<HttpRequest, 'method' | 'path' | 'idempotent'>;
  /** the header that carries the token */
  carry(token: string): Record<string, string>;
  /** the token of a 2xx login answer */
  issued(response: HttpResponse): IssuedToken;
}
