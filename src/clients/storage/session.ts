import type { Logger } from 'pino';
import type { TargetConfig } from '../../config/load';
import { ApiError } from '../errors';
import type { HttpCore } from '../http';
import { errorForStatus, serverReason } from '../response';
import { waitUnlessAborted } from '../wait';

export const AUTH_PATH = '/rest/v1.0/auth';
export const TOKEN_HEADER = 'x-dd-auth-token';
/** Logging out is a courtesy at shutdown: it must not hold the exit up. */
const LOGOUT_TIMEOUT_MS = 5_000;

/**
 * The storage API's token session (api-notes): `POST /rest/v1.0/auth` with
 * `{username, password}` answers 201 with the token in `X-DD-AUTH-TOKEN`,
 * `DELETE /rest/v1.0/auth` ends it. Concurrent requests share one login: the
 * first caller starts it, the others await the same promise. A login that
 * fails is not remembered, so the next request tries again.
 */
export class TokenSession {
  private token: string | undefined;
  private loggingIn: Promise<string> | undefined;

  constructor(
    private readonly http: HttpCore,
    private readonly target: TargetConfig,
    private readonly logger: Logger,
  ) {}

  /** The current token, logging in first when there is none. */
  async current(signal?: AbortSignal): Promise<string> {
    if (this.token !== undefined) return this.token;
    // The shared login is not tied to one caller's signal (another caller may
    // still want it); each caller stops waiting when its own signal aborts.
    this.loggingIn ??= this.login().finally(() => {
      this.loggingIn = undefined;
    });
    return waitUnlessAborted(this.loggingIn, signal, abortError);
  }

  /**
   * Forgets `token` after the server refused it with 401. A request that used
   * an older token than the current one does not throw the newer one away.
   */
  invalidate(token: string): void {
    if (this.token === token) this.token = undefined;
  }

  /** Ends the session on the server, if there is one; failures are only logged. */
  async logout(): Promise<void> {
    if (this.loggingIn) await this.loggingIn.catch(() => undefined);
    const token = this.token;
    if (token === undefined) return;
    this.token = undefined;
    try {
      const response = await this.http.request({
        method: 'DELETE',
        path: AUTH_PATH,
        endpoint: AUTH_PATH,
        headers: { accept: 'application/json', [TOKEN_HEADER]: token },
        signal: AbortSignal.timeout(Math.min(LOGOUT_TIMEOUT_MS, this.target.requestTimeout)),
      });
      if (response.status >= 300 && response.status !== 401) {
        this.logger.debug({ status: response.status }, 'storage logout not accepted');
      }
    } catch (error) {
      this.logger.debug({ err: error }, 'storage logout failed');
    }
  }

  private async login(): Promise<string> {
    const response = await this.http.request({
      method: 'POST',
      path: AUTH_PATH,
      endpoint: AUTH_PATH,
      headers: { accept: 'application/json' },
      body: { username: this.target.username, password: this.target.password.reveal() },
    });
    if (response.status === 401 || response.status === 403) {
      const reason = serverReason(response.text);
      throw new ApiError('auth', AUTH_PATH, `login rejected: HTTP ${response.status}${reason ? ` (${reason})` : ''}`, response.status);
    }
    // Other statuses (a 503 of an unavailable server ...) say nothing about the credentials.
    if (response.status !== 201 && response.status !== 200) throw errorForStatus(response, AUTH_PATH, 'login');
    const header = response.headers[TOKEN_HEADER];
    const token = Array.isArray(header) ? header[0] : header;
    if (!token) {
      throw new ApiError('protocol', AUTH_PATH, `login answered ${response.status} without an X-DD-AUTH-TOKEN header`, response.status);
    }
    this.token = token;
    return token;
  }
}

function abortError(): ApiError {
  return new ApiError('aborted', AUTH_PATH, 'aborted by the collector time limit while waiting for the login');
}
