/**
 * The plugin's list query language: `?<field>=<v1>[,<v2>]` filters (several
 * fields all apply), `sort=a,-b`, `fields=a,b`. Values compare as strings,
 * so `?isRegistered=true` and `?sizeInMB=1024` work as a client would expect.
 */

type Row = Readonly<Record<string, unknown>>;

const RESERVED = new Set(['sort', 'fields']);

/** A name the records do not have (in `fields=`, a filter or `sort=`), or one the list does not filter or sort by: a 400. */
export class UnknownFieldError extends Error {}

/** What a list filters and sorts by, where the seed names it (consistency groups); otherwise any field of its records. */
export interface ListRules {
  filterable?: ReadonlySet<string>;
  sortable?: ReadonlySet<string>;
  /** the fields of the list's records (the plugin's model): known to the plugin even when no record carries them, or none is listed */
  model?: readonly string[];
}

/**
 * Filters, sorts and projects `rows`. A name no record carries, in `fields=`, a filter or `sort=`, is an UnknownFieldError (the
 * real plugin answers an unknown `fields=` name with 400; the grammar filters and sorts "by a field", so a name that is none is
 * refused alike), and so is a filter or sort the list's rules do not allow. Names are checked against the list's model and its
 * records' fields; only a list without a model and without records accepts any name its rules allow.
 */
export function applyListQuery(rows: readonly Row[], query: Record<string, unknown>, rules: ListRules = {}): Row[] {
  const fields = listOf(query.fields);
  const filters = Object.keys(query).filter((name) => !RESERVED.has(name));
  const sort = listOf(query.sort);
  const sortFields = sort.map((key) => key.replace(/^[-+]/, ''));
  const known = rows.length > 0 || rules.model ? new Set([...rows.flatMap((row) => Object.keys(row)), ...(rules.model ?? [])]) : undefined;
  const refuse = (what: string, names: string[], allowed: ReadonlySet<string> | undefined): void => {
    const unknown = names.filter((name) => (known && !known.has(name)) || (allowed && !allowed.has(name)));
    if (unknown.length > 0) throw new UnknownFieldError(`Unknown field(s) in ${what}: ${unknown.join(', ')}`);
  };
  refuse('fields', fields, undefined);
  refuse('filter', filters, rules.filterable);
  refuse('sort', sortFields, rules.sortable);
  let result: Row[] = filterRows(rows, query);
  if (sort.length > 0) result = sortRows(result, sort);
  if (fields.length > 0) result = result.map((row) => project(row, fields));
  return result;
}

function filterRows(rows: readonly Row[], query: Record<string, unknown>): Row[] {
  const filters: Array<[string, Set<string>]> = [];
  for (const [field, value] of Object.entries(query)) {
    if (RESERVED.has(field)) continue;
    filters.push([field, new Set(listOf(value))]);
  }
  if (filters.length === 0) return rows.slice();
  return rows.filter((row) =>
    filters.every(([field, allowed]) => {
      const value = row[field];
      return value !== undefined && value !== null && typeof value !== 'object' && allowed.has(String(value));
    }),
  );
}

function sortRows(rows: Row[], keys: string[]): Row[] {
  const order = keys.map((key) => (key.startsWith('-') ? { field: key.slice(1), dir: -1 } : { field: key.replace(/^\+/, ''), dir: 1 }));
  return rows.sort((a, b) => {
    for (const { field, dir } of order) {
      const c = compareValues(a[field], b[field]);
      if (c !== 0) return c * dir;
    }
    return 0;
  });
}

/** numbers numerically, everything else as strings; missing values last */
function compareValues(a: unknown, b: unknown): number {
  const aMissing = a === undefined || a === null;
  const bMissing = b === undefined || b === null;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const as = String(a);
  const bs = String(b);
  return as < bs ? -1 : as > bs ? 1 : 0;
}

function project(row: Row, fields: string[]): Row {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (field in row) out[field] = row[field];
  return out;
}

/** `a,b` or repeated parameters (`?x=a&x=b`) both give [a, b] */
function listOf(value: unknown): string[] {
  const parts = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return parts
    .flatMap((p) => String(p).split(','))
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}
