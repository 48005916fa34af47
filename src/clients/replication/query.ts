/**
 * The plugin's list query language (seed, "Query parameters on list
 * endpoints"): `?<field>=<v1>,<v2>` filters (all fields apply), `sort=a,-b`,
 * `fields=a,b`, written by queryString (a list's values joined by a literal comma).
 */
import type { QueryValue } from '../query-string';

/** Filters: field name -> one value or several (any of them matches). */
export type ListFilter = Readonly<Record<string, string | number | boolean | readonly (string | number | boolean)[]>>;

export interface ListQuery<F extends string = string> {
  /** partial response: only these fields are returned (and validated) */
  fields: readonly F[];
  filter?: ListFilter;
  /** sort keys in order; `desc(field)` for descending */
  sort?: readonly string[];
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const RESERVED = new Set(['fields', 'sort']);

/** A descending sort key. */
export function desc(field: string): string {
  return `-${field}`;
}

/** The query parameters of a list request (queryString sends them), its field names checked. */
export function listQuery(query: ListQuery): Record<string, QueryValue> {
  const params: Record<string, QueryValue> = {};
  for (const [field, value] of Object.entries(query.filter ?? {})) {
    if (RESERVED.has(field)) throw new Error(`"${field}" is not a filterable field name`);
    checkField(field);
    if (Array.isArray(value) && value.length === 0) throw new Error(`filter on ${field} needs at least one value`);
    params[field] = value;
  }
  if (query.sort && query.sort.length > 0) {
    for (const key of query.sort) checkField(key.replace(/^[-+]/, ''));
    params.sort = query.sort;
  }
  if (query.fields.length > 0) {
    for (const field of query.fields) checkField(field);
    params.fields = [...new Set(query.fields)];
  }
  return params;
}

/** Field names come from code, not from users: a bad one is a programming error. */
function checkField(field: string): void {
  if (!FIELD_NAME.test(field)) throw new Error(`"${field}" is not a valid field name`);
}

/**
 * The query with its field names (fields, filters, sort keys) written in
 * another spelling: `names` maps a name of the internal model to the server's.
 */
export function renamedQuery(query: ListQuery, names: Readonly<Record<string, string>>): ListQuery {
  const rename = (field: string): string => names[field] ?? field;
  // a sort key is a field with an optional direction sign before it
  const renameKey = (key: string): string => key.replace(/^([-+]?)(.*)$/, (_, sign: string, field: string) => sign + rename(field));
  return {
    fields: query.fields.map(rename),
    ...(query.filter ? { filter: Object.fromEntries(Object.entries(query.filter).map(([field, value]) => [rename(field), value])) } : {}),
    ...(query.sort ? { sort: query.sort.map(renameKey) } : {}),
  };
}
