/**
 * Lists of the management service: filter, orderby, and the two paging modes.
 *
 * Random paging: `page` (1-based) and `pageSize` (1..10000), answered with
 * page {size, number, totalPages, totalElements}. The seed's rule "do not use
 * random paging for results above 10000 resources in total" is enforced the
 * way a service that holds to it answers: a page that reaches past the
 * 10,000th result of a larger query gets a 400 (counted as a refusal, so
 * tests can check that a client never asks). Lists that also page serially refuse
 * any page past the 10,000th result.
 *
 * Serial paging: `queryState=BEGIN` (with filter, orderby, pageSize), then
 * only `queryState=<token>`. The token is bound server-side to the list, the
 * filter, the order and the position, and is good for one request. The last
 * page says `queryState: "END"` and still carries content. A serial query
 * pages over a snapshot of the list taken at BEGIN, so items appended while
 * paging do not make it run forever.
 */
import { randomBytes } from 'node:crypto';
import {
  FilterError,
  boundsOf,
  compileFilter,
  isPureRange,
  parseOrderBy,
  pinnedValues,
  type FieldSpecs,
  type Literal,
  type OrderTerm,
  type Predicate,
} from './filter';
import { lowerBound } from './hash';

/** An error the caller made or asked for: status, reason and optional remediation for the error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly remediation?: string,
  ) {
    super(message);
  }
}

export const MAX_PAGE_SIZE = 10_000;
export const DEFAULT_PAGE_SIZE = 100;
/** random paging reaches at most this many results into a list that also pages serially */
export const RANDOM_PAGING_WINDOW = 10_000;

export interface Seq<T> {
  length: number;
  at(i: number): T;
  /** the sort field's value (epoch ms) at i, when the list is sorted on it */
  keyAt?(i: number): number;
}

export interface ListSource<T> {
  /** names the list in serial-paging tokens and caches */
  name: string;
  fields: FieldSpecs<T>;
  /** the items are in ascending order of this (time or number) field */
  sortField?: string;
  /** without orderby, serve the natural order reversed */
  defaultDescending?: boolean;
  /**
   * Time fields never before the sort field and at most `lag` ms after it
   * (an activity starts and ends after it is created): a range on them
   * narrows the range of the sort field that has to be scanned.
   */
  trailingFields?(): Record<string, number>;
  /** direct lookup for filters that name items by `id eq` / `id in (...)` (no scan) */
  byId?(id: string): T | undefined;
  /** the sort field's value of an item (needed with byId to keep the natural order) */
  keyOf?(item: T): number;
  /** the items now; `snapshot` asks for a view later changes cannot shift */
  items(snapshot: boolean): Seq<T>;
  render(item: T): unknown;
  /** changes whenever the items or anything derived from them can have changed */
  stamp(): string;
  paging: 'random' | 'serial' | 'both';
}

export interface ListQuery {
  filter?: string;
  orderby?: string;
  page?: string;
  pageSize?: string;
  queryState?: string;
}

export interface RandomPage {
  content: unknown[];
  page: { size: number; number: number; totalPages: number; totalElements: number };
}

export interface SerialPage {
  content: unknown[];
  page: { size: number; queryState: string };
}

type Resolved<T> =
  | { kind: 'range'; seq: Seq<T>; lo: number; hi: number; descending: boolean; predicate?: Predicate<T> }
  | { kind: 'list'; items: T[] };

interface Cursor<T> {
  source: ListSource<T>;
  resolved: Resolved<T>;
  /** index of the next candidate to look at (in serving order) */
  next: number;
  pageSize: number;
}

const CURSOR_LIMIT = 2000;
const CACHE_LIMIT = 8;

export class Lister {
  private readonly cursors = new Map<string, Cursor<unknown>>();
  private readonly cache = new Map<string, unknown[]>();

  /** answers a list request in the paging mode the query asks for */
  serve<T>(source: ListSource<T>, query: ListQuery): RandomPage | SerialPage {
    if (query.queryState !== undefined) {
      if (source.paging === 'random') throw new HttpError(400, `${source.name} does not support serial paging (queryState); use page and pageSize`);
      return this.serial(source, query);
    }
    if (source.paging === 'serial') {
      throw new HttpError(400, `${source.name} supports serial paging only: send queryState=BEGIN first`, 'Page with queryState=BEGIN, then the queryState token of each response');
    }
    return this.random(source, query);
  }

  private random<T>(source: ListSource<T>, query: ListQuery): RandomPage {
    const pageSize = parsePageSize(query.pageSize);
    const page = parseIntParam('page', query.page, 1);
    if (page < 1) throw new HttpError(400, `page must be 1 or more, got ${page}`);
    if (source.paging === 'both' && page * pageSize > RANDOM_PAGING_WINDOW) {
      throw new HttpError(400, `random paging reaches at most ${RANDOM_PAGING_WINDOW} results (page ${page} x pageSize ${pageSize})`, 'Use serial paging (queryState=BEGIN) for larger result sets');
    }
    const resolved = this.resolve(source, query.filter, query.orderby, false);
    const from = (page - 1) * pageSize;
    const direct = resolved.kind === 'range' && !resolved.predicate ? resolved : undefined;
    const matches = direct ? undefined : this.matches(source, query, resolved);
    const total = direct ? direct.hi - direct.lo : (matches as T[]).length;
    if (total > RANDOM_PAGING_WINDOW && Math.min(total, from + pageSize) > RANDOM_PAGING_WINDOW) {
      throw new HttpError(
        400,
        `random paging is not available for results above ${RANDOM_PAGING_WINDOW} resources in total (this query has ${total}; page ${page} x pageSize ${pageSize} reaches past result ${RANDOM_PAGING_WINDOW})`,
        'Narrow the query with a filter so that it has at most 10000 results',
      );
    }
    let content: unknown[];
    if (direct) {
      const { seq, lo, hi, descending } = direct;
      content = [];
      for (let j = from; j < Math.min(total, from + pageSize); j++) content.push(source.render(seq.at(descending ? hi - 1 - j : lo + j)));
    } else {
      content = (matches as T[]).slice(from, from + pageSize).map((item) => source.render(item));
    }
    return { content, page: { size: pageSize, number: page, totalPages: Math.ceil(total / pageSize), totalElements: total } };
  }

  /** all matches in serving order, cached while the list does not change */
  private matches<T>(source: ListSource<T>, query: ListQuery, resolved: Resolved<T>): T[] {
    if (resolved.kind === 'list') return resolved.items;
    const key = `${source.name}\n${source.stamp()}\n${query.filter ?? ''}\n${query.orderby ?? ''}`;
    const hit = this.cache.get(key) as T[] | undefined;
    if (hit) return hit;
    const { seq, lo, hi, descending, predicate } = resolved;
    const out: T[] = [];
    for (let j = 0; j < hi - lo; j++) {
      const item = seq.at(descending ? hi - 1 - j : lo + j);
      if (!predicate || predicate(item)) out.push(item);
    }
    this.remember(key, out);
    return out;
  }

  private remember(key: string, items: unknown[]): void {
    this.cache.set(key, items);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
  }

  private serial<T>(source: ListSource<T>, query: ListQuery): SerialPage {
    const token = query.queryState as string;
    const restart = 'Start a new query with queryState=BEGIN';
    if (query.page !== undefined) throw new HttpError(400, 'page belongs to random paging: a serial query pages with queryState', restart);
    // api-notes: every later request sends only pageSize and the token, which stands for the query
    if (token !== 'BEGIN' && (query.filter !== undefined || query.orderby !== undefined)) {
      throw new HttpError(400, 'a queryState continues its query: send only pageSize and queryState', restart);
    }
    let cursor: Cursor<T>;
    if (token === 'BEGIN') {
      cursor = { source, resolved: this.resolve(source, query.filter, query.orderby, true), next: 0, pageSize: parsePageSize(query.pageSize) };
    } else if (token === 'END') {
      throw new HttpError(400, 'queryState END marks the last page of a serial query and is never sent', 'Start a new query with queryState=BEGIN');
    } else {
      const found = this.cursors.get(token) as Cursor<T> | undefined;
      if (!found) throw new HttpError(400, 'queryState is unknown, expired or already used', 'Start a new query with queryState=BEGIN');
      if (found.source.name !== source.name) throw new HttpError(400, `queryState belongs to another list than ${source.name}`, 'Start a new query with queryState=BEGIN');
      this.cursors.delete(token);
      cursor = found;
      if (query.pageSize !== undefined) cursor.pageSize = parsePageSize(query.pageSize);
    }
    const { items, more } = takePage(cursor);
    let queryState = 'END';
    if (more) {
      queryState = randomBytes(18).toString('base64url');
      this.cursors.set(queryState, cursor as Cursor<unknown>);
      if (this.cursors.size > CURSOR_LIMIT) this.cursors.delete(this.cursors.keys().next().value as string);
    }
    return { content: items.map((item) => source.render(item)), page: { size: cursor.pageSize, queryState } };
  }

  private resolve<T>(source: ListSource<T>, filterText: string | undefined, orderbyText: string | undefined, snapshot: boolean): Resolved<T> {
    try {
      return resolveQuery(source, filterText, orderbyText, snapshot);
    } catch (err) {
      if (err instanceof FilterError) throw new HttpError(400, err.message, 'Correct the filter or orderby expression');
      throw err;
    }
  }
}

/** the page at the cursor, and whether anything matches after it (so the last page can say END) */
function takePage<T>(cursor: Cursor<T>): { items: T[]; more: boolean } {
  const r = cursor.resolved;
  if (r.kind === 'list') {
    const items = r.items.slice(cursor.next, cursor.next + cursor.pageSize);
    cursor.next += items.length;
    return { items, more: cursor.next < r.items.length };
  }
  const { seq, lo, hi, descending, predicate } = r;
  const count = hi - lo;
  const at = (j: number): T => seq.at(descending ? hi - 1 - j : lo + j);
  const items: T[] = [];
  let j = cursor.next;
  for (; j < count && items.length < cursor.pageSize; j++) {
    const item = at(j);
    if (!predicate || predicate(item)) items.push(item);
  }
  // look ahead to the next match: a page that ends exactly at the last match must say END
  while (j < count && predicate && !predicate(at(j))) j++;
  cursor.next = j;
  return { items, more: j < count };
}

export function resolveQuery<T>(source: ListSource<T>, filterText: string | undefined, orderbyText: string | undefined, snapshot: boolean): Resolved<T> {
  let ast;
  let predicate: Predicate<T> | undefined;
  if (filterText !== undefined && filterText.trim() !== '') ({ ast, predicate } = prefixed('Invalid filter', () => compileFilter(filterText, source.fields)));
  const terms = orderbyText !== undefined && orderbyText.trim() !== '' ? prefixed('Invalid orderby', () => parseOrderBy(orderbyText, source.fields)) : [];
  const seq = source.items(snapshot);
  const first = terms[0];
  const ids = ast && source.byId ? pinnedValues(ast, 'id') : undefined;
  if (ids && source.byId) return byIds(source, ids, predicate, terms);
  if (terms.length === 0 || (terms.length === 1 && first?.field === source.sortField)) {
    const descending = first ? first.descending : source.defaultDescending === true;
    let lo = 0;
    let hi = seq.length;
    const sortField = source.sortField;
    const keyAt = seq.keyAt?.bind(seq);
    if (ast && sortField && keyAt) {
      const spec = source.fields[sortField];
      const bounds = boundsOf(ast, sortField, spec?.kind ?? 'time');
      if (bounds.min !== undefined) lo = lowerBound(seq.length, keyAt, bounds.min, !bounds.minInclusive);
      if (bounds.max !== undefined) hi = Math.max(lo, lowerBound(seq.length, keyAt, bounds.max, bounds.maxInclusive));
      if (isPureRange(ast, sortField)) predicate = undefined;
      for (const [field, lag] of Object.entries(source.trailingFields?.() ?? {})) {
        const trailing = boundsOf(ast, field, 'time');
        if (trailing.min !== undefined && Number.isFinite(lag)) lo = Math.max(lo, lowerBound(seq.length, keyAt, trailing.min - lag));
        if (trailing.max !== undefined) hi = Math.min(hi, lowerBound(seq.length, keyAt, trailing.max, true));
      }
      hi = Math.max(lo, hi);
    }
    return { kind: 'range', seq, lo, hi, descending, ...(predicate ? { predicate } : {}) };
  }
  // any other order: materialise the matches and sort them on precomputed keys
  const getters = terms.map((t) => ({ get: (source.fields[t.field] as FieldSpecs<T>[string]).get, sign: t.descending ? -1 : 1 }));
  const rows: { item: T; keys: unknown[] }[] = [];
  for (let i = 0; i < seq.length; i++) {
    const item = seq.at(i);
    if (!predicate || predicate(item)) rows.push({ item, keys: getters.map((g) => g.get(item)) });
  }
  rows.sort((a, b) => {
    for (let k = 0; k < getters.length; k++) {
      const c = compareValues(a.keys[k], b.keys[k]);
      if (c !== 0) return c * (getters[k] as { sign: number }).sign;
    }
    return 0;
  });
  return { kind: 'list', items: rows.map((r) => r.item) };
}

/** the items named by id, in natural (or the asked) order, filtered by the whole filter */
function byIds<T>(source: ListSource<T>, ids: Literal[], predicate: Predicate<T> | undefined, terms: OrderTerm[]): Resolved<T> {
  const items: T[] = [];
  for (const id of new Set(ids)) {
    const item = typeof id === 'string' ? source.byId?.(id) : undefined;
    if (item !== undefined && (!predicate || predicate(item))) items.push(item);
  }
  const order = terms.length > 0 ? terms : source.sortField ? [{ field: source.sortField, descending: source.defaultDescending === true }] : [];
  const keyed = items.map((item) => ({
    item,
    keys: order.map((t) => (t.field === source.sortField && source.keyOf ? source.keyOf(item) : source.fields[t.field]?.get(item))),
  }));
  keyed.sort((a, b) => {
    for (let k = 0; k < order.length; k++) {
      const c = compareValues(a.keys[k], b.keys[k]);
      if (c !== 0) return (order[k] as OrderTerm).descending ? -c : c;
    }
    return 0;
  });
  return { kind: 'list', items: keyed.map((r) => r.item) };
}

function prefixed<R>(prefix: string, run: () => R): R {
  try {
    return run();
  } catch (err) {
    if (err instanceof FilterError) throw new FilterError(`${prefix}: ${err.message}`);
    throw err;
  }
}

/** nulls first, then numbers/strings/booleans in their natural order */
function compareValues(a: unknown, b: unknown): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an === bn ? 0 : an ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function parseIntParam(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^-?\d+$/.test(value)) throw new HttpError(400, `${name} must be an integer, got "${value}"`);
  return Number(value);
}

function parsePageSize(value: string | undefined): number {
  const size = parseIntParam('pageSize', value, DEFAULT_PAGE_SIZE);
  if (size < 1 || size > MAX_PAGE_SIZE) throw new HttpError(400, `pageSize must be between 1 and ${MAX_PAGE_SIZE}, got ${size}`);
  return size;
}

/** Seq over an array; `key` gives the sort field's epoch ms */
export function arraySeq<T>(items: readonly T[], key?: (item: T) => number): Seq<T> {
  return {
    length: items.length,
    at: (i) => items[i] as T,
    ...(key ? { keyAt: (i: number) => key(items[i] as T) } : {}),
  };
}
