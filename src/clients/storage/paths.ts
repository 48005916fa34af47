/**
 * The storage API's two path forms (seed, "Base paths"): `/rest/vX.Y/...`
 * (every release) and `/api/vN/...` (7.2 and later). Each resource is read at
 * the form and version api-notes gives for it. A path has two spellings: the
 * concrete one sent, with the URL-encoded SYSTEM-ID, and the template that
 * names it in metrics and spans, with `{id}`. The systems collection is
 * spelled `store-systems` in the seed and `dd-systems` on the real appliance
 * and center (see ../spelling.ts).
 */
import type { ApiSpelling } from '../spelling';

export type RestVersion = 'v1.0' | 'v2.0' | 'v3.0';
export type ApiVersion = 'v1' | 'v2' | 'v3';

export interface ResourcePath {
  /** what is sent, e.g. /rest/v2.0/store-systems/ab12%3Acd34/stats/capacity (or dd-systems) */
  path: string;
  /** the metric label, e.g. /rest/v2.0/store-systems/{id}/stats/capacity */
  endpoint: string;
}

/** The name of the systems collection in a spelling. */
export function systemsCollection(spelling: ApiSpelling): string {
  return spelling === 'product' ? 'dd-systems' : 'store-systems';
}

/** `/rest/<version>/<systems>/<SYSTEM-ID>/<resource>` */
export function restSystemPath(version: RestVersion, systemPathId: string, resource: string, spelling: ApiSpelling): ResourcePath {
  return systemPath(`/rest/${version}/${systemsCollection(spelling)}`, systemPathId, resource);
}

/** `/api/<version>/<systems>/<SYSTEM-ID>/<resource>` */
export function apiSystemPath(version: ApiVersion, systemPathId: string, resource: string, spelling: ApiSpelling): ResourcePath {
  return systemPath(`/api/${version}/${systemsCollection(spelling)}`, systemPathId, resource);
}

/** A path without a SYSTEM-ID, e.g. `/rest/v1.0/system`. */
export function restPath(version: RestVersion, resource: string): ResourcePath {
  const path = `/rest/${version}/${resource}`;
  return { path, endpoint: path };
}

function systemPath(collectionBase: string, systemPathId: string, resource: string): ResourcePath {
  return {
    path: `${collectionBase}/${systemPathId}/${resource}`,
    endpoint: `${collectionBase}/{id}/${resource}`,
  };
}

/**
 * The SYSTEM-ID path segment for a system id as a list reports it. Ids are
 * sent URL-encoded (the colon of a system UUID as %3A); an id that already
 * arrives encoded is decoded first, so it is never encoded twice.
 */
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
