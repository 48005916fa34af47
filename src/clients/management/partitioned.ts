/**
 * Random-paged listings of any size under the service's rule "do not use random paging for results above 10000 resources in
 * total". The query is asked as usual first: at or under the limit (most estates) its first page is the listing's first page.
 * Above it, the query is split into half-open ranges of a key field (`id`, or `assetId` where a row has no id), each ANDed
 * with the caller's filter, plus `key eq null` when the key may be missing: consecutive ranges of one string order leave no
 * value out and hold none twice, so every row is read exactly once whatever the ids look like. The boundaries spread evenly
 * over hex prefixes (the ids are UUIDs), for about 9,000 rows each; a range still over 10,000 is split again from its own
 * total, and one that cannot be split fails the listing: never a truncated count. A range's first page is its size probe
 * too, so the cost over the lower bound is the whole query's first (discarded) page and one partly filled page per range.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ApiError } from '../errors';
import { and, isNull, lt, ge, type Filter } from './filter';
import { RANDOM_PAGING_LIMIT, firstRandomPage, maxPages, randomPages } from './paging';
import type { ListSpec, PageFetcher, PagesRead } from './paging';

/** The field the ranges are taken on, and whether a row may lack it (then `eq null` is a partition of its own). */
export interface PartitionKey {
  field: string;
  nullable: boolean;
}

/** Rows aimed at per range: under the limit with room for uneven ids and rows added while paging. */
const ROWS_PER_RANGE = 9_000;
/** Hex digits of a boundary: 16^8 points, far more than any estate needs to tell apart. */
const BOUNDARY_DIGITS = 8;
const KEY_SPACE = 16 ** BOUNDARY_DIGITS;

/** [lo, hi) over the hex key space (lo 0 has no lower bound, hi KEY_SPACE no upper one), and the count of the range it was split from. */
interface KeyRange {
  lo: number;
  hi: number;
  of: number;
}

export async function* partitionedRandomPages<S extends z.ZodType>(
  fetchAny: PageFetcher,
  whole: ListSpec<S>,
  key: PartitionKey,
  signal: AbortSignal | undefined,
  logger: Logger,
  concurrency: number,
): AsyncGenerator<Array<z.output<S>>> {
  const fetchPage = withRequestBound(fetchAny, whole);
  const probe = await firstRandomPage(fetchPage, whole, signal);
  if (probe.total === undefined || probe.total <= RANDOM_PAGING_LIMIT) {
    return yield* randomPages(fetchPage, whole, signal, concurrency, probe.answer);
  }
  if (probe.total > whole.maxItems) {
    // Ranges would read it all: a count past the bound fails before a single range is asked.
    const what = `the service counts ${probe.total} results: more than maxListingItems (${whole.maxItems})`;
    throw new ApiError('protocol', whole.endpoint, what, probe.answer.status);
  }
  const { field, nullable } = key;
  const pending: Array<KeyRange | 'null'> = split({ lo: 0, hi: KEY_SPACE, of: probe.total }, probe.total);
  if (nullable) pending.push('null');
  let readTotal = 0;
  let ranges = 0;
  const read: PagesRead = { rows: 0 }; // one count of rows for all ranges: together they end within maxListingItems
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    const spec = { ...whole, filter: and(whole.filter, part === 'null' ? isNull(field) : rangeFilter(field, part)) };
    const first = await firstRandomPage(fetchPage, spec, signal);
    const total = first.total ?? 0;
    const what = part === 'null' ? `${field} eq null` : `${field} from "${boundary(part.lo)}" on`;
    const of = part === 'null' ? probe.total : part.of;
    // A range holding more than the query it narrows is a count made up: splitting by it would ask without end.
    if (total > of) throw new ApiError('protocol', spec.endpoint, `${total} results with ${what}: more than the ${of} it is part of`);
    if (total > RANDOM_PAGING_LIMIT) {
      if (part === 'null' || part.hi - part.lo < 2) {
        const why = `more than the ${RANDOM_PAGING_LIMIT} random paging allows, and the range cannot be split further`;
        throw new ApiError('protocol', spec.endpoint, `${total} results with ${what}: ${why}`);
      }
      pending.unshift(...split(part, total));
      continue;
    }
    ranges += 1;
    readTotal += total;
    read.firstRow = undefined; // a page without a number is told from the range's own first page, not from the first range's
    yield* randomPages(fetchPage, spec, signal, concurrency, first.answer, read);
  }
  // The ranges cover the key space, so a difference is the list changing while it was read.
  const level = readTotal === probe.total ? 'debug' : 'warn';
  const fields = { endpoint: whole.endpoint, totalElements: probe.total, partitionedTotal: readTotal, ranges };
  logger[level](fields, 'random-paged listing read in ranges of the key (over 10000 results)');
}

/**
 * `fetchPage` ending the listing past the requests maxListingItems' rows take in ranges: their pages, and per range a partly
 * filled page and a discarded first page (when split); ranges split without end, or pages of one row, end there.
 */
function withRequestBound(fetchPage: PageFetcher, whole: ListSpec<z.ZodType>): PageFetcher {
  const most = maxPages(whole) + 2 * Math.ceil(whole.maxItems / ROWS_PER_RANGE);
  let asked = 0;
  return async (request) => {
    if (++asked <= most) return fetchPage(request);
    throw new ApiError('protocol', whole.endpoint, `not read after ${most} requests, the most maxListingItems (${whole.maxItems}) allows`);
  };
}

/** `total` rows' worth of a range in pieces of about ROWS_PER_RANGE: at least two, at most as many as it has points. */
function split(range: KeyRange, total: number): KeyRange[] {
  const width = range.hi - range.lo;
  const count = Math.min(width, Math.max(2, Math.ceil(total / ROWS_PER_RANGE)));
  const parts: KeyRange[] = [];
  for (let i = 0; i < count; i++) {
    parts.push({ lo: range.lo + Math.floor((width * i) / count), hi: range.lo + Math.floor((width * (i + 1)) / count), of: total });
  }
  return parts;
}

function rangeFilter(field: string, range: KeyRange): Filter {
  // A piece of a split never spans the whole key space, so at least one bound is present.
  return and(range.lo > 0 ? ge(field, boundary(range.lo)) : undefined, range.hi < KEY_SPACE ? lt(field, boundary(range.hi)) : undefined);
}

/** A key-space point as a hex prefix without trailing zeros ("8" for the middle): shorter filters, in the same order as the points. */
export function boundary(point: number): string {
  return point.toString(16).padStart(BOUNDARY_DIGITS, '0').replace(/0+$/, '') || '0';
}
