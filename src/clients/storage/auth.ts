/**
 * How the storage API logs in and out (api-notes): `POST /rest/v1.0/auth`
 * with `{username, password}` answers 201 with the token in
 * `X-DD-AUTH-TOKEN`, which lives until the API refuses it; `DELETE
 * /rest/v1.0/auth` ends the session. The shared session around it is
 * ../token-session.ts.
 */
import type { Logger } from 'pino';
import type { TargetConfig } from '../../config/load';
import { ApiError } from '../errors';
import type { HttpCore } from '../http';
import { errorForStatus, serverReason } from '../response';
import type { IssuedToken } from '../token-session';

export const AUTH_PATH = '/rest/v1.0/auth';
export const TOKEN_HEADER = 'x-dd-auth-token';
/** Logging out is a courtesy at shutdown: it must not hold the exit up. */
const LOGOUT_TIMEOUT_MS = 5_000;

/** Logs in; a refused login is `auth`, an answer without the token header `protocol`. */
export async function storageLogin(http: HttpCore, target: TargetConfig): Promise<IssuedToken> {
  const response = await http.request({
    method: 'POST',
    path: AUTH_PATH,
    endpoint: AUTH_PATH,
    headers: { accept: 'application/json' },
    body: { username: target.username, password: target.password.reveal() },
  });
  if (response.status === 401 || response.status === 403) {
    const reason = serverReason(response.text);
    throw new ApiError('auth', AUTH_PATH, `login rejected: HTTP ${response.status}${reason ? ` (${reason})` : ''}`, response.status);
  }
  // Other statuses (a 503 of an unavailable server ...) say nothing about the credentials.
  if (response.status !== 201 && response.status !== 200) throw errorForStatus(response, AUTH_PATH, 'login');
  const header = response.headers[TOKEN_HEADER];
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) {
    throw new ApiError('protocol', AUTH_PATH, `login answered ${response.status} without an X-DD-AUTH-TOKEN header`, response.status);
  }
  return { value: token, expiresInSeconds: undefined };
}

/** Ends the session on the server; failures are only logged. */
export async function storageLogout(http: HttpCore, target: TargetConfig, token: string, logger: Logger): Promise<void> {
  try {
    const response = await http.request({
      method: 'DELETE',
      path: AUTH_PATH,
      endpoint: AUTH_PATH,
      headers: { accept: 'application/json', [TOKEN_HEADER]: token },
      signal: AbortSignal.timeout(Math.min(LOGOUT_TIMEOUT_MS, target.requestTimeout)),
    });
    if (response.status >= 300 && response.status !== 401) {
      logger.debug({ status: response.status }, 'storage logout not accepted');
    }
  } catch (error) {
    logger.debug({ err: error }, 'storage logout failed');
  }
}
