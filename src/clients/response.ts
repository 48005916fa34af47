/**
 * Judging an HTTP answer: a status the client does not accept is an ApiError of the right kind, and a JSON body of the wrong
 * shape a bounded `protocol` error, never a crash or a wrong number (a bad listing item is skipped and counted). Unnamed
 * fields are dropped and enumerations read as plain strings: that is how the clients tolerate new fields and values.
 */
import { z } from 'zod';
import { ApiError } from './errors';
import type { HttpResponse } from './http';
import { check, oneLine, summarize } from '../util/validation';
import { countSkippedItem } from './run-requests';

/** Longest piece of a server's error message quoted in an ApiError: enough to explain, never a whole body. */
const MAX_REASON_CHARS = 160;
/** Schema problems named in one `protocol` error. */
const MAX_ISSUES = 3;

/**
 * The error for a status the caller does not accept: 401 is `auth`, anything else `status` (the target is down only for 5xx:
 * ApiError.unreachable). A 401's reason is never quoted: it may name the refused credential (the management service's
 * "reason names the invalid token"), and this message reaches the logs, the landing page and the traces.
 */
export function errorForStatus(response: HttpResponse, endpoint: string, doing?: string): ApiError {
  const reason = response.status === 401 ? undefined : serverReason(response.text);
  const what = doing ? `${doing}: ` : '';
  const message = `${what}HTTP ${response.status}${reason ? ` (${reason})` : ''}`;
  return new ApiError(response.status === 401 ? 'auth' : 'status', endpoint, message, response.status);
}

/** A login the API refused (401, 403): an `auth` error naming the user, never the password. */
export function loginRejected(response: HttpResponse, endpoint: string, username: string): ApiError {
  const reason = serverReason(response.text);
  const status = `HTTP ${response.status}${reason ? `: ${reason}` : ''}`;
  return new ApiError('auth', endpoint, `login rejected for user ${username} (${status})`, response.status);
}

/** A one-line reason from a JSON error body's reason, message, details or error; never the body, which may be huge or echo the request. */
export function serverReason(text: string): string | undefined {
  if (!text || text.length > 64_000) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object') return undefined;
  for (const key of ['reason', 'message', 'details', 'error']) {
    const value = (body as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.trim()) return oneLine(value, MAX_REASON_CHARS);
  }
  return undefined;
}

/** Validates already parsed JSON; a wrong shape is a `protocol` error naming the first offending fields ("body.page.queryState"). */
export function validate<S extends z.ZodType>(value: unknown, endpoint: string, schema: S, status?: number): z.output<S> {
  const checked = check(schema, value, { at: 'body' });
  if (checked.ok) return checked.value;
  throw new ApiError('protocol', endpoint, `unexpected response shape: ${summarize(checked.problems, MAX_ISSUES)}`, status);
}

/** The items that pass the schema, in order; one that fails is left out, counted (countSkippedItem) and handed to `skipped`. */
export function validateItems<S extends z.ZodType>(
  schema: S,
  items: readonly unknown[],
  endpoint: string,
  at: string,
  skipped?: (item: unknown) => void,
): Array<z.output<S>> {
  const valid: Array<z.output<S>> = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const checked = check(schema, item, { at: `${at}[${index}]` });
    if (checked.ok) {
      valid.push(checked.value);
      continue;
    }
    skipped?.(item);
    const id = item && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
    countSkippedItem({
      endpoint,
      id: typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 64) : undefined,
      problem: summarize(checked.problems, MAX_ISSUES),
      reason: checked.kind,
    });
  }
  return valid;
}

/** A field that may be omitted or null, read as undefined then. */
export const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((value) => value ?? undefined);
export const optionalString = optional(z.string());

/** A string or number identifier, read as a string (APIs differ on ids' JSON type). */
export const idString = z.union([z.string(), z.number()]).transform((value) => String(value));

/**
 * Parses a JSON body; a malformed one is a bounded `parse` error quoting the parser without the piece of the body it cites
 * (which could be anything), or for a `secret` answer (a login's, holding the token) giving only its size.
 */
export function parseJson(response: HttpResponse, endpoint: string, secret?: 'login response'): unknown {
  try {
    return JSON.parse(response.text);
  } catch (error) {
    const size = `a ${response.text.length}-byte`;
    if (secret) throw new ApiError('parse', endpoint, `malformed JSON in ${size} ${secret}`, response.status);
    // V8 cites the body as `"<html><hea"...`, `..."1, hunter2-se"...` or whole when short: any of them goes.
    const problem = (error as Error).message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, ' (not valid JSON)').slice(0, 120);
    throw new ApiError('parse', endpoint, `malformed JSON in ${size} body: ${problem}`, response.status);
  }
}
