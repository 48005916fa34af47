import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SimulatedClock } from '../core/clock';

export const AUTH_HEADER = 'x-dd-auth-token';

/**
 * Login tokens of one storage API server. A token ends on logout or after
 * `ttlSeconds` of simulated time without use (advancing the clock far makes
 * clients log in again, as on a real appliance).
 */
export class TokenStore {
  private readonly lastUse = new Map<string, number>();

  constructor(
    private readonly clock: SimulatedClock,
    private readonly ttlSeconds: number,
  ) {}

  issue(): string {
    // Real randomness, not the seeded stream: tokens must not be guessable, and
    // logins must not shift the estate's numbers.
    const token = randomBytes(24).toString('base64url');
    this.lastUse.set(token, this.clock.now().getTime());
    return token;
  }

  /** true (and refreshes it) when the token is live */
  use(token: string | undefined): boolean {
    if (!token) return false;
    const last = this.lastUse.get(token);
    if (last === undefined) return false;
    const now = this.clock.now().getTime();
    if (now - last > this.ttlSeconds * 1000) {
      this.lastUse.delete(token);
      return false;
    }
    this.lastUse.set(token, Math.max(now, last));
    return true;
  }

  revoke(token: string): void {
    this.lastUse.delete(token);
  }
}

export function credentialsMatch(username: unknown, password: unknown, expectedUser: string, expectedPassword: string): boolean {
  return typeof username === 'string' && typeof password === 'string' && safeEqual(username, expectedUser) && safeEqual(password, expectedPassword);
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
