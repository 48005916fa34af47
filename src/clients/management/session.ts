/**
 * The management service's bearer token: one login shared by every request of
 * the target, renewed shortly before `expires_in` runs out, and replaced once
 * when the service answers 401. Concurrent callers that need a token while a
 * login is running wait for that same login (no login storm).
 */
import { ApiError } from '../errors';
import { waitUnlessAborted } from '../wait';

export interface Token {
  readonly value: string;
  /** local monotonic time (performance.now()) after which the token is renewed before use */
  readonly renewAt: number;
}

export type LoginFunction = () => Promise<{ accessToken: string; expiresInSeconds: number | undefined }>;

/** Renew this long before the token's end (at most), so a request never races the expiry. */
const RENEW_MARGIN_MS = 60_000;
/** Lifetime assumed when the login response has no expires_in. */
const DEFAULT_TTL_SECONDS = 3600;

export class TokenSession {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  private loginCount = 0;

  constructor(
    private readonly login: LoginFunction,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** logins performed so far (for tests and logs) */
  get logins(): number {
    return this.loginCount;
  }

  /** the token in use, if any (for logout) */
  get token(): string | undefined {
    return this.current?.value;
  }

  /**
   * A valid token: the current one, the one a running login is about to give,
   * or a new login. The caller's signal ends the wait, not the shared login.
   */
  async get(signal?: AbortSignal): Promise<string> {
    const current = this.current;
    if (current && this.clock() < current.renewAt) return current.value;
    this.pending ??= this.startLogin();
    const token = await waitUnlessAborted(
      this.pending,
      signal,
      () => new ApiError('aborted', '/api/v2/login', 'aborted by the collector time limit while waiting for the login'),
    );
    return token.value;
  }

  /**
   * The service rejected `token` (401): forget it, unless a newer token has
   * already replaced it (another request saw the same 401 first).
   */
  invalidate(token: string): void {
    if (this.current?.value === token) this.current = undefined;
  }

  /** forgets the token (after logout) */
  clear(): void {
    this.current = undefined;
  }

  private startLogin(): Promise<Token> {
    const started = this.clock();
    const running = this.login().then(
      ({ accessToken, expiresInSeconds }) => {
        this.loginCount += 1;
        const ttlMs = (expiresInSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
        const margin = Math.min(RENEW_MARGIN_MS, ttlMs * 0.1);
        const token: Token = { value: accessToken, renewAt: started + ttlMs - margin };
        this.current = token;
        return token;
      },
    );
    // Whatever the outcome, the next caller after this login starts afresh.
    running.then(
      () => {
        if (this.pending === running) this.pending = undefined;
      },
      () => {
        if (this.pending === running) this.pending = undefined;
      },
    );
    return running;
  }
}
