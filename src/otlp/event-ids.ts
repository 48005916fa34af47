/**
 * Trace and span ids derived from the estate's own ids, so that an activity
 * exported twice (a restart with a backfill) is the same span, and a job
 * that completes before its group still lands in the group's trace. The
 * target's name is part of the input: two services may use the same ids.
 */
import { createHash } from 'node:crypto';

function hex(kind: string, target: string, id: string, length: number): string {
  const digest = createHash('sha256').update(`${kind}\u0000${target}\u0000${id}`).digest('hex').slice(0, length);
  // All zeros is the invalid id of the W3C trace context; sha-256 gives it with probability 2^-64.
  return /^0+$/.test(digest) ? `${digest.slice(0, -1)}1` : digest;
}

/** the trace of a job group (its root activity's id) */
export function traceIdOf(target: string, rootActivityId: string): string {
  return hex('trace', target, rootActivityId, 32);
}

export function spanIdOf(target: string, activityId: string): string {
  return hex('span', target, activityId, 16);
}
