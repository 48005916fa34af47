/** When the HTTP core asks again (429, 502, 503, 504, network errors, timeouts): full-jitter exponential backoff, honouring Retry-After. */
import type { ApiError } from './errors';

export const RETRIABLE_STATUS = new Set([429, 502, 503, 504]);
/** statuses that mean the server refused the request without processing it */
const REFUSED_STATUS = new Set([429, 503]);

export interface RetryPolicy {
  maxAttempts: number;
  /** total time one request may spend waiting between attempts */
  maxRetryWaitMs: number;
  /** first backoff step; doubles each attempt, with full jitter */
  backoffBaseMs: number;
}

/**
 * The wait before attempt `attempt + 1`, or undefined when this outcome is final. A request that is not idempotent is asked
 * again only when refused outright (429, 503): after a network error, timeout, 502 or 504 it may already have been processed.
 */
export function retryDelay(
  outcome: { status?: number; headers?: Record<string, string | string[] | undefined>; failure?: ApiError | undefined },
  attempt: number,
  waited: number,
  idempotent: boolean,
  policy: RetryPolicy,
): number | undefined {
  const { status, failure } = outcome;
  // A body refused for its size is no passing fault: asking again would read it again.
  const transientFailure = failure !== undefined && (failure.kind === 'network' || failure.kind === 'timeout');
  const retriable = idempotent
    ? transientFailure || (status !== undefined && RETRIABLE_STATUS.has(status))
    : status !== undefined && REFUSED_STATUS.has(status);
  const backoff = Math.random() * policy.backoffBaseMs * 2 ** (attempt - 1);
  const delay = Math.max(backoff, parseRetryAfter(outcome.headers?.['retry-after']) ?? 0);
  return !retriable || attempt >= policy.maxAttempts || waited + delay > policy.maxRetryWaitMs ? undefined : delay;
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds. */
function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
