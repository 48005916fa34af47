/**
 * Judging an HTTP answer, shared by the API clients: a status the client does
 * not accept becomes an ApiError of the right kind, and a JSON body is checked
 * against a zod schema so that a wrong shape is a bounded `protocol` error,
 * never a crash or a wrong number; a listing item of the wrong shape is
 * skipped and counted (validateItems). Schemas built with z.object() drop fields
 * they do not name, which is how the clients tolerate new fields; enumerations
 * are read as plain strings for the same reason (an unknown value is data,
 * e.g. a state set's extra series).
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
 * The error for a status the caller does not accept. 401 is `auth` (the
 * credentials or the session were refused); everything else is `status`, which
 * counts as the target being down only for 5xx (see ApiError.unreachable).
 * A 401's reason is never quoted: it may name the credential that was refused
 * (the management service's "reason names the invalid token"), and this
 * message reaches the logs, the landing page and the traces.
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

/**
 * A short, single-line reason from a JSON error body (`reason`, `message`,
 * `details` or `error`, as the three APIs spell it), or undefined. Bodies are
 * never quoted whole: they may be huge or echo the request.
 */
export function serverReason(text: string): string | undefined {
  if (!text || text.length > 64_000) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['reason', 'message', 'details', 'error']) {
    const value = record[key];
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

/**
 * The items of a listing that pass the item schema, in order. An item that
 * fails is left out and counted for the run (countSkippedItem) by its
 * endpoint, its id when it has one and its first problems (field paths and
 * what is wrong), never by its content: one bad item costs that item, not the listing.
 */
export function validateItems<S extends z.ZodType>(schema: S, items: readonly unknown[], endpoint: string, at: string): Array<z.output<S>> {
  const valid: Array<z.output<S>> = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const checked = check(schema, item, { at: `${at}[${index}]` });
    if (checked.ok) {
      valid.push(checked.value);
      continue;
    }
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
 * Parses a JSON body; a malformed body becomes a bounded `parse` error, never
 * a crash. The parser's message is quoted without the piece of the body it
 * cites, which could be anything the body holds; the body of a `secret`
 * answer (a login's, which holds the token) is described by its size alone.
 */
export function parseJson(response: HttpResponse, endpoint: string, secret?: 'login response'): unknown {
  try {
    return JSON.parse(response.text);
  } catch (error) {
    const size = `a ${response.text.length}-byte`;
    if (secret) throw new ApiError('parse', endpoint, `malformed JSON in ${size} ${secret}`, response.status);
    const problem = (error as Error).message.replace(/, ".*" is not valid JSON$/s, ' (not valid JSON)').slice(0, 120);
    throw new ApiError('parse', endpoint, `malformed JSON in ${size} body: ${problem}`, response.status);
  }
}
