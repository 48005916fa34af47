/**
 * Bearer-token sessions of the management service. Tokens expire by the
 * simulated clock (expires_in = ctx.tokenTtlSeconds), on logout, and, when
 * the fault knob `faults.tokenExpiresAfterRequests` is set, after that many
 * authenticated requests (the request that goes over gets the 401).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { SimContext } from '../core/context';
import { sendError } from './errors';

interface Session {
  username: string;
  jti: string;
  expiresAtMs: number;
  requests: number;
}

export interface LoginResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  jti: string;
  scope: string;
  refresh_token: string;
}

const RELOGIN = 'Log in again with POST /api/v2/login and send the new access token in the Authorization header';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export class Sessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly ctx: SimContext) {}

  /** a JWT-shaped, opaque access token (the signature part is random) */
  login(username: string): LoginResponse {
    this.dropExpired();
    const nowMs = this.ctx.clock.now().getTime();
    const jti = randomUUID();
    const ttl = this.ctx.tokenTtlSeconds;
    const token = [
      base64url({ alg: 'HS256', typ: 'JWT' }),
      base64url({ sub: username, jti, scope: 'aaa', iat: Math.floor(nowMs / 1000), exp: Math.floor(nowMs / 1000) + ttl }),
      randomBytes(32).toString('base64url'),
    ].join('.');
    this.sessions.set(token, { username, jti, expiresAtMs: nowMs + ttl * 1000, requests: 0 });
    return { access_token: token, token_type: 'Bearer', expires_in: ttl, jti, scope: 'aaa', refresh_token: randomBytes(32).toString('base64url') };
  }

  logout(token: string): void {
    this.sessions.delete(token);
  }

  /** express middleware: 401 unless the request carries a live token; counts the request against it */
  readonly require = (req: Request, res: Response, next: NextFunction): void => {
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      sendError(res, req, 401, 'Missing access token: send Authorization: Bearer <access_token>', RELOGIN);
      return;
    }
    const token = match[1] as string;
    const session = this.sessions.get(token);
    if (!session) {
      sendError(res, req, 401, 'The access token is invalid or was logged out', RELOGIN);
      return;
    }
    if (this.ctx.clock.now().getTime() >= session.expiresAtMs) {
      this.sessions.delete(token);
      sendError(res, req, 401, 'The access token has expired', RELOGIN);
      return;
    }
    session.requests += 1;
    const limit = this.ctx.faults.tokenExpiresAfterRequests;
    if (limit !== undefined && session.requests > limit) {
      this.sessions.delete(token);
      sendError(res, req, 401, 'The access token has expired', RELOGIN);
      return;
    }
    res.locals.accessToken = token;
    res.locals.username = session.username;
    next();
  };

  private dropExpired(): void {
    const nowMs = this.ctx.clock.now().getTime();
    for (const [token, session] of this.sessions) if (nowMs >= session.expiresAtMs) this.sessions.delete(token);
  }
}
