/**
 * The storage API's two path forms (seed, "Base paths"): `/rest/vX.Y/...` (every release) and `/api/vN/...` (7.2 and later),
 * each resource read at the form and version api-notes gives for it. Each path is built twice: the one sent, with the encoded
 * SYSTEM-ID, and the template naming it in metrics and spans, with `{id}`. Systems are `store-systems` or `dd-systems`.
 */
import type { ApiSpelling } from '../spelling';

/** The path forms and versions the exporter reads resources at. */
export type ApiBase = `/rest/v${'1.0' | '2.0' | '3.0'}` | `/api/v${1 | 2 | 3}`;

export interface ResourcePath {
  /** what is sent, e.g. /rest/v2.0/store-systems/ab12%3Acd34/stats/capacity (or dd-systems) */
  path: string;
  /** the metric label, e.g. /rest/v2.0/store-systems/{id}/stats/capacity */
  endpoint: string;
}

/** The systems collection under `base` in a spelling, e.g. `/rest/v1.0/store-systems`. */
export function systemsPath(base: ApiBase, spelling: ApiSpelling): ResourcePath {
  const path = `${base}/${spelling === 'product' ? 'dd-systems' : 'store-systems'}`;
  return { path, endpoint: path };
}

/** `<base>/<systems>/<SYSTEM-ID>/<resource>`, the SYSTEM-ID a `{id}` in the endpoint. */
export function systemPath(base: ApiBase, systemPathId: string, resource: string, spelling: ApiSpelling): ResourcePath {
  const endpoint = `${systemsPath(base, spelling).path}/{id}/${resource}`;
  return { path: endpoint.replace('{id}', systemPathId), endpoint };
}

/** The URL-encoded SYSTEM-ID path segment (a UUID's colon as %3A); an id that arrives encoded is decoded first, never encoded twice. */
export function systemPathSegment(id: string): string {
  return encodeURIComponent(plainSystemId(id));
}

/** The id in its plain form (the `system_id` label): decoded once when it arrives encoded. */
export function plainSystemId(id: string): string {
  if (!/%[0-9A-Fa-f]{2}/.test(id)) return id;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}
