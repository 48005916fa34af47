/**
 * Errors of the HTTP clients, naming the endpoint template and what went wrong, never credentials, tokens or response bodies
 * (which may be huge). `unreachable` ones make the target down (dataprotect_up 0); others mean the answer was unusable.
 */
export type ApiErrorKind =
  | 'network' // connection refused/reset, DNS, TLS
  | 'timeout' // the per-request time limit ran out
  | 'aborted' // the caller's signal (the collector's time limit) ended the request
  | 'status' // an HTTP status the client does not accept
  | 'auth' // login rejected or 401 after a fresh login
  | 'parse' // the body is not the JSON the API promises
  | 'protocol'; // valid JSON of the wrong shape, a paging contract broken, a link response where data was expected

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    readonly endpoint: string,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${endpoint}: ${message}`, options);
    this.name = 'ApiError';
  }

  /** whether this failure means the source could not be read at all (target down) */
  get unreachable(): boolean {
    return (
      this.kind === 'network' ||
      this.kind === 'timeout' ||
      this.kind === 'auth' ||
      (this.kind === 'status' && this.status !== undefined && this.status >= 500)
    );
  }
}

/** Whether `error` is the API answering with one of `statuses` (a `status` error). */
export function isStatusError(error: unknown, ...statuses: number[]): error is ApiError {
  return error instanceof ApiError && error.kind === 'status' && statuses.includes(error.status ?? 0);
}
