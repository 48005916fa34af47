/**
 * Query handling shared by the storage list endpoints: 0-based `page`/`size`
 * paging with `paging_info`, `sort=a,-b`, and `filter=field=value[ and ...]`.
 */

export const DEFAULT_PAGE_SIZE = 20;

export interface PagingInfo {
  current_page: number;
  page_entries: number;
  total_entries: number;
  page_size: number;
}

export class QueryError extends Error {}

export interface PageRequest {
  page: number;
  size: number;
}

export function pageRequest(query: Record<string, unknown>): PageRequest {
  return {
    page: nonNegativeInt(query.page, 'page', 0),
    size: nonNegativeInt(query.size, 'size', DEFAULT_PAGE_SIZE, 1),
  };
}

export function slicePage<T>(items: readonly T[], { page, size }: PageRequest): { items: T[]; paging_info: PagingInfo } {
  const slice = items.slice(page * size, page * size + size);
  return { items: slice, paging_info: { current_page: page, page_entries: slice.length, total_entries: items.length, page_size: size } };
}

export interface SortKey {
  field: string;
  descending: boolean;
}

export function sortKeys(query: Record<string, unknown>): SortKey[] {
  const raw = single(query.sort, 'sort');
  if (raw === undefined || raw === '') return [];
  return raw.split(',').map((part) => {
    const key = part.trim();
    if (!/^[-+]?[A-Za-z_][\w.]*$/.test(key)) throw new QueryError(`Invalid sort field: ${key}`);
    return key.startsWith('-') ? { field: key.slice(1), descending: true } : { field: key.replace(/^\+/, ''), descending: false };
  });
}

export function sortRows<T extends object>(rows: T[], keys: SortKey[]): T[] {
  if (keys.length === 0) return rows;
  return rows.sort((a, b) => {
    for (const { field, descending } of keys) {
      const c = compare(valueAt(a, field), valueAt(b, field));
      if (c !== 0) return descending ? -c : c;
    }
    return 0;
  });
}

/** `filter=status=active` or `filter=status=active and severity=CRITICAL,ERROR` */
export function filterPredicate(query: Record<string, unknown>): (row: object) => boolean {
  const raw = single(query.filter, 'filter');
  if (raw === undefined || raw.trim() === '') return () => true;
  const terms = raw.split(/\s+and\s+/i).map((term) => {
    const match = /^\s*([A-Za-z_][\w.]*)\s*=\s*(.+?)\s*$/.exec(term);
    if (!match) throw new QueryError(`Invalid filter: ${term}`);
    const [, field, values] = match as unknown as [string, string, string];
    return { field, allowed: new Set(values.split(',').map((v) => v.trim())) };
  });
  return (row) => terms.every(({ field, allowed }) => {
    const value = valueAt(row, field);
    return value !== undefined && value !== null && allowed.has(String(value));
  });
}

function valueAt(row: object, path: string): unknown {
  let value: unknown = row;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : 1;
  if (b === undefined || b === null) return -1;
  const as = String(a);
  const bs = String(b);
  return as < bs ? -1 : as > bs ? 1 : 0;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new QueryError(`Parameter ${name} must be given once`);
  return value;
}

function nonNegativeInt(value: unknown, name: string, fallback: number, min = 0): number {
  const raw = single(value, name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new QueryError(`Invalid value for ${name}: ${raw}`);
  return Number(raw);
}
