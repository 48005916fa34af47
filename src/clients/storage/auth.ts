/**
 * How the storage API logs in (api-notes): `POST /rest/v1.0/auth`
 * with `{username, password}` answers 201 with the token in
 * `X-DD-AUTH-TOKEN`, which lives until the API refuses it; `DELETE
 * /rest/v1.0/auth` ends the session. The shared session around it is
 * ../token-session.ts.
 */
import type { TargetConfig } from '../../config/load';
import { ApiError } from '../errors';
import type { HttpCore } from '../http';
import { errorForStatus, loginRejected } from '../response';
import type { IssuedToken } from '../token-session';

export const AUTH_PATH = '/rest/v1.0/auth';
export const TOKEN_HEADER = 'x-dd-auth-token';

/** Logs in; a refused login is `auth`, an answer without the token header `protocol`. */
export async function storageLogin(http: HttpCore, target: TargetConfig): Promise<IssuedToken> {
  const response = await http.request({
    method: 'POST',
    path: AUTH_PATH,
    endpoint: AUTH_PATH,
    headers: { accept: 'application/json' },
    body: { username: target.username, password: target.password.reveal() },
  });
  const rejected = loginRejected(response, AUTH_PATH, target.username);
  if (rejected) throw rejected;
  // Other statuses (a 503 of an unavailable server ...) say nothing about the credentials.
  if (response.status !== 201 && response.status !== 200) throw errorForStatus(response, AUTH_PATH, 'login');
  const header = response.headers[TOKEN_HEADER];
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) {
    throw new ApiError('protocol', AUTH_PATH, `login answered ${response.status} without an X-DD-AUTH-TOKEN header`, response.status);
  }
  return { value: token, expiresInSeconds: undefined };
}

