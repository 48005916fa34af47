/**
 * The plugin's list query language (seed, "Query parameters on list
 * endpoints"): `?<field>=<v1>,<v2>` filters (all fields apply), `sort=a,-b`,
 * `fields=a,b`. Values are percent-encoded one by one and joined with a literal
 * comma, because the comma is the list separator and must stay a comma.
 */

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

/** The query string (with its leading "?", or "" when empty) for a list request. */
export function listQueryString(query: ListQuery): string {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(query.filter ?? {})) {
    if (RESERVED.has(field)) throw new Error(`"${field}" is not a filterable field name`);
    checkField(field);
    const values = (Array.isArray(value) ? value : [value]) as readonly (string | number | boolean)[];
    if (values.length === 0) throw new Error(`filter on ${field} needs at least one value`);
    parts.push(`${encodeURIComponent(field)}=${values.map((v) => encodeURIComponent(String(v))).join(',')}`);
  }
  if (query.sort && query.sort.length > 0) {
    for (const key of query.sort) checkField(key.replace(/^[-+]/, ''));
    parts.push(`sort=${query.sort.map(encodeURIComponent).join(',')}`);
  }
  if (query.fields.length > 0) {
    for (const field of query.fields) checkField(field);
    parts.push(`fields=${[...new Set(query.fields)].map(encodeURIComponent).join(',')}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
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
