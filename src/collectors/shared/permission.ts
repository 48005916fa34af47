import type { Logger } from 'pino';
import { isStatusError } from '../../clients/errors';
import { compositeKey } from '../../util/composite-key';

const REPEAT_AFTER_MS = 60 * 60_000;

/** A failure the collector has already logged in full: the scheduler keeps its own line to debug. */
export class PermissionDenied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionDenied';
  }
}

/** When each target's collector last logged its missing role (epoch ms). */
const lastLogged = new Map<string, number>();

/**
 * Turns a 403 into a PermissionDenied naming the role needed; any other error is returned as it is. A 403 is the account's
 * configuration, not an outage: every run gets the same answer until someone changes it, so the line is repeated at most hourly
 * per target and collector, lest a run every few minutes bury the log.
 */
export function explainForbidden(
  error: unknown,
  where: { target: string; collector: string; role: string; logger: Logger; nowMs: number },
): unknown {
  if (!isStatusError(error, 403)) return error;
  const message =
    `the account has no access to ${error.endpoint} (HTTP 403): the ${where.collector} collector needs the ${where.role} role`;
  const key = compositeKey([where.target, where.collector]);
  const last = lastLogged.get(key);
  if (last === undefined || where.nowMs - last >= REPEAT_AFTER_MS || where.nowMs < last) {
    lastLogged.set(key, where.nowMs);
    where.logger.warn({ endpoint: error.endpoint, role: where.role }, `${message}; repeated at most hourly while it lasts`);
  }
  return new PermissionDenied(message);
}
