import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Secret } from '../util/secret';

/** user name -> password, as web.basicAuthUsers gives them (undefined: no authentication) */
export type BasicAuthUsers = Readonly<Record<string, Secret>> | undefined;

const REALM = 'dataprotect-exporter';

/** Fixed-length digests, so that timingSafeEqual never sees different lengths (which would leak the length). */
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The user and password of an `Authorization: Basic ...` header, or undefined. */
export function parseBasicAuth(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Whether the credentials match a configured user. Every configured user is
 * compared, in constant time per comparison, so neither the user name nor the
 * password can be found out from how long the answer takes.
 */
export function credentialsMatch(users: NonNullable<BasicAuthUsers>, user: string, password: string): boolean {
  const given = digest(`${user}\u0000${password}`);
  let matched = false;
  for (const [name, secret] of Object.entries(users)) {
    if (timingSafeEqual(given, digest(`${name}\u0000${secret.reveal()}`))) matched = true;
  }
  return matched;
}

/**
 * Express middleware guarding /metrics, /probe and / with HTTP basic auth
 * (RFC 7617). `users` is read on every request, so a reloaded configuration
 * takes effect at once. No users configured: everything passes.
 */
export function basicAuthGuard(users: () => BasicAuthUsers, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const configured = users();
    if (!configured) return next();
    const credentials = parseBasicAuth(req.headers.authorization);
    if (credentials && credentialsMatch(configured, credentials.user, credentials.password)) return next();
    // The user name helps to find a misconfigured scraper; the password is never logged.
    logger.debug({ path: req.path, user: credentials?.user, remote: req.socket.remoteAddress }, 'unauthorized request');
    res
      .status(401)
      .set('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`)
      .type('text/plain')
      .send('Unauthorized\n');
  };
}
