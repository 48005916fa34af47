import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
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

/** A configured value of this form is a bcrypt hash, as in Prometheus's web config. */
export function isBcryptHash(value: string): boolean {
  return /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/.test(value);
}

/**
 * bcrypt is slow on purpose (tens of milliseconds a check): a verified
 * (user, password, hash) is remembered by digest, as Prometheus's exporter
 * toolkit does, so that scrapes every few seconds do not pay it each time.
 */
const verifiedHashes = new Set<string>();
const MAX_VERIFIED = 256;

/** A hash to spend the same time on when the user does not exist (no user enumeration by timing). */
let dummyHash: string | undefined;

async function bcryptMatches(password: string, hash: string, user: string): Promise<boolean> {
  const key = digest(`${user}\u0000${password}\u0000${hash}`).toString('hex');
  if (verifiedHashes.has(key)) return true;
  if (!(await bcrypt.compare(password, hash))) return false;
  if (verifiedHashes.size >= MAX_VERIFIED) verifiedHashes.clear();
  verifiedHashes.add(key);
  return true;
}

/**
 * Whether the credentials match a configured user. A configured value is a
 * bcrypt hash or the password itself; plain passwords are compared in
 * constant time over digests, so neither the user name nor the password can
 * be found out from how long the answer takes.
 */
export async function credentialsMatch(users: NonNullable<BasicAuthUsers>, user: string, password: string): Promise<boolean> {
  const stored = Object.hasOwn(users, user) ? users[user]?.reveal() : undefined;
  if (stored !== undefined && isBcryptHash(stored)) return bcryptMatches(password, stored, user);
  if (stored === undefined && Object.values(users).some((secret) => isBcryptHash(secret.reveal()))) {
    dummyHash ??= bcrypt.hashSync('not a password', 10);
    await bcrypt.compare(password, dummyHash);
    return false;
  }
  const given = digest(`${user}\u0000${password}`);
  let matched = false;
  for (const [name, secret] of Object.entries(users)) {
    const value = secret.reveal();
    if (!isBcryptHash(value) && timingSafeEqual(given, digest(`${name}\u0000${value}`))) matched = true;
  }
  return matched;
}

/**
 * Express middleware guarding /metrics, /probe and / with HTTP basic auth
 * (RFC 7617). `users` is read on every request, so a reloaded configuration
 * takes effect at once. No users configured: everything passes.
 */
export function basicAuthGuard(users: () => BasicAuthUsers, logger: Logger) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const configured = users();
    if (!configured) return next();
    const credentials = parseBasicAuth(req.headers.authorization);
    if (credentials && (await credentialsMatch(configured, credentials.user, credentials.password))) return next();
    // The user name helps to find a misconfigured scraper; the password is never logged.
    logger.debug({ path: req.path, user: credentials?.user, remote: req.socket.remoteAddress }, 'unauthorized request');
    res
      .status(401)
      .set('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`)
      .type('text/plain')
      .send('Unauthorized\n');
  };
}
