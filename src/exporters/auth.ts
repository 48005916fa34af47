import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Secret } from '../util/secret';
import { bcryptCost, isBcryptHash } from '../util/bcrypt-hash';
import { BcryptWorker, type BcryptVerifier } from './bcrypt-worker';
import { pathOf, writeText } from './plain-http';

/** user name -> password, as web.basicAuthUsers gives them (undefined: no authentication) */
export type BasicAuthUsers = Readonly<Record<string, Secret>> | undefined;

export function parseBasicAuth(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A flood of shed requests logs one line (with their count) per interval, not one per request. */
const SHED_LOG_INTERVAL_MS = 10_000;

/** The cost factor of the decoy comparison when no configured user has a bcrypt hash. */
const DEFAULT_COST = 10;

/**
 * A well-formed bcrypt hash of no password, at the configured hashes' highest cost: compared against for an unknown or plain-password
 * user, so that every refusal spends one bcrypt comparison of the same cost. Made of random salts (cheap), without hashing.
 */
const decoys = new Map<number, string>();
function decoyHash(users: NonNullable<BasicAuthUsers>): string {
  const cost = Math.max(0, ...Object.values(users).map((secret) => secret.reveal()).filter(isBcryptHash).map(bcryptCost)) || DEFAULT_COST;
  let decoy = decoys.get(cost);
  if (!decoy) {
    // "$2b$NN$" + 22 salt characters, then 31 digest characters taken from two more salts
    decoy = bcrypt.genSaltSync(cost) + bcrypt.genSaltSync(4).slice(7) + bcrypt.genSaltSync(4).slice(7, 16);
    decoys.set(cost, decoy);
  }
  return decoy;
}

/** An HMAC of credentials, keyed by this process: a fixed length for timingSafeEqual (lengths would leak), and no password recoverable. */
const processKey = randomBytes(32);
const keyedHash = (...parts: string[]): Buffer => createHmac('sha256', processKey).update(parts.join('\u0000'), 'utf8').digest();

/**
 * Verified credentials by keyed hash, as Prometheus's exporter toolkit keeps them: frequent scrapes do not pay bcrypt each time. The
 * stored value is part of the key, so a rotated password or hash is verified again.
 */
const verified = new Set<string>();
const MAX_VERIFIED = 256;

/** Constant time over keyed hashes, against every plain-password user whoever is asked for. */
function plainPasswordMatches(users: NonNullable<BasicAuthUsers>, user: string, password: string): boolean {
  const given = keyedHash(user, password);
  let matched = false;
  for (const [name, secret] of Object.entries(users)) {
    const value = secret.reveal();
    if (!isBcryptHash(value) && timingSafeEqual(given, keyedHash(name, value))) matched = true;
  }
  return matched;
}

/** The process's bcrypt worker thread, shared by every guard (its thread starts at its first use). */
export const sharedBcryptWorker = new BcryptWorker();

/** What the guard does with a request: let it in, refuse it (401), or shed it (503, the verifier is full). */
export type Verdict = 'accepted' | 'refused' | 'shed';

/**
 * Whether the credentials match a configured user (a bcrypt hash or the password). Those verified before pass at once; else a full queue
 * sheds the request, whoever asks (telling nothing of the credentials). Any other check does the same work whoever asks (plain passwords
 * compared in constant time, one bcrypt comparison off the event loop, against the user's hash or a same-cost decoy): timing reveals no
 * user name. Synchronous but for the comparison: a flood of bad logins past the queue costs no promise or error object per request.
 */
export function checkCredentials(
  users: NonNullable<BasicAuthUsers>,
  user: string,
  password: string,
  verifier: BcryptVerifier = sharedBcryptWorker,
): Verdict | Promise<Verdict> {
  const stored = Object.hasOwn(users, user) ? users[user]?.reveal() : undefined;
  const key = keyedHash(user, password, stored ?? '').toString('hex');
  if (stored !== undefined && verified.has(key)) return 'accepted';
  if (verifier.full) return 'shed';
  const plainMatched = plainPasswordMatches(users, user, password);
  const storedIsHash = stored !== undefined && isBcryptHash(stored);
  // Not full: compare() takes this comparison (nothing else runs before it is queued).
  return verifier.compare(password, storedIsHash ? stored : decoyHash(users)).then((bcryptMatched): Verdict => {
    if (stored === undefined || !(storedIsHash ? bcryptMatched : plainMatched)) return 'refused';
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.add(key);
    return 'accepted';
  });
}

/** HTTP basic auth (RFC 7617) as a connect-style guard. `users` is read per request, so a reload counts at once; with none, all pass. */
export function basicAuthGuard(users: () => BasicAuthUsers, logger: Logger, verifier: BcryptVerifier = sharedBcryptWorker) {
  let shed = 0;
  let lastShedLog = 0;
  const decide = (req: IncomingMessage, res: ServerResponse, next: () => void, user: string | undefined, verdict: Verdict): void => {
    if (verdict === 'accepted') return next();
    if (verdict === 'shed') {
      // A flood of bad logins is answered at once, not queued for bcrypt past every scrape timeout.
      shed += 1;
      if (Date.now() - lastShedLog >= SHED_LOG_INTERVAL_MS) {
        lastShedLog = Date.now();
        logger.warn({ path: pathOf(req), pending: verifier.pending, shed }, 'too many password verifications pending; requests shed');
        shed = 0;
      }
      return writeText(res, 503, 'Too many authentication attempts\n', { 'Retry-After': '1' });
    }
    // The user name helps to find a misconfigured scraper; the password is never logged.
    logger.debug({ path: pathOf(req), user, remote: req.socket.remoteAddress }, 'unauthorized request');
    writeText(res, 401, 'Unauthorized\n', { 'WWW-Authenticate': 'Basic realm="dataprotect-exporter", charset="UTF-8"' });
  };
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const configured = users();
    if (!configured) return next();
    // No or malformed credentials are checked like wrong ones: the same work, the same answer.
    const credentials = parseBasicAuth(req.headers.authorization);
    const verdict = checkCredentials(configured, credentials?.user ?? '', credentials?.password ?? '', verifier);
    if (typeof verdict === 'string') return decide(req, res, next, credentials?.user, verdict);
    verdict.then(
      (settled) => decide(req, res, next, credentials?.user, settled),
      (error: unknown) => {
        logger.error({ err: error }, 'password verification failed');
        writeText(res, 500, 'Password verification failed\n');
      },
    );
  };
}
