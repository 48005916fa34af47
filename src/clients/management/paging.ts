/**
 * The management service's two ways of paging a listing, as async generators of pages of checked items (a failing item is
 * skipped and counted; a page that is not one fails the listing):
 * - random: `page=1..n&pageSize=N`; the service forbids it over 10000 resources, so it is used only where serial paging is not
 *   offered, and a larger query is an error here rather than a refused request (partitioned.ts splits such listings).
 * - serial: `pageSize=N&queryState=BEGIN`, then `pageSize=N&queryState=<token>` with the previous answer's token; the page
 *   with `queryState: "END"` still carries content; END is never sent; a token is never sent twice.
 * Stopping the iteration early (break) sends nothing more: random paging aborts the pages it had requested ahead.
 */
import { z } from 'zod';
import type { GetRequest, JsonAnswer } from '../api-client';
import { ApiError } from '../errors';
import { queryString } from '../query-string';
import type { Filter } from './filter';
import { validate, validateItems } from '../response';
import { LinkedSignal } from '../../util/linked-signal';

export type PageFetcher = (request: GetRequest) => Promise<JsonAnswer>;

export interface ListSpec<S extends z.ZodType> {
  /** path template for metrics, e.g. /api/v2/assets/{id}/copies */
  endpoint: string;
  /** concrete path without query string */
  path: string;
  filter?: Filter | undefined;
  schema: S;
  pageSize: number;
  /** the most items the listing may return (the target's maxListingItems): see ListingBound */
  maxItems: number;
  /** For a listing that cannot be narrowed (copy-metrics): told the total when reading stops at RANDOM_PAGING_LIMIT instead of failing. */
  cutAtLimit?: (total: number, read: number) => void;
  /** compliance-details: pageSize counts results, not the records a page holds (api-notes), so a page may hold more than it */
  pagesCountResults?: boolean;
}

/** Every paging loop (storage's too) ends within maxListingItems: a confused or hostile service gets an error, not a request storm. */
type ListingBound = Pick<ListSpec<z.ZodType>, 'maxItems' | 'pageSize'>;
type PageBound = ListingBound & Pick<ListSpec<z.ZodType>, 'endpoint' | 'pagesCountResults'>;

/** What a listing has read so far: its rows (skipped ones too) and its first page's first row. */
export type PagesRead = { rows: number; firstRow?: string };

/**
 * Refuses a page that would be counted wrong: another page than the one asked (its number says so, or, without one, it opens
 * with the first page's first row: a proxy dropping `page`), more rows than the pageSize asked, or rows past maxListingItems.
 */
export function checkPage(spec: PageBound, read: PagesRead, page: number, rows: unknown[], got?: number | null, status?: number): void {
  const fail = (problem: string): never => {
    throw new ApiError('protocol', spec.endpoint, problem, status);
  };
  const head = rowText(rows[0], page);
  if (got != null && got !== page) fail(`asked for page ${page} and got page ${got}`);
  if (got == null && rows.length > 0 && head === read.firstRow) fail(`asked for page ${page} and got the first page again`);
  if (rows.length > spec.pageSize && !spec.pagesCountResults) fail(`page ${page} holds ${rows.length} items, pageSize ${spec.pageSize}`);
  read.rows += rows.length;
  if (read.rows > spec.maxItems) fail(`${read.rows} items by page ${page}: more than maxListingItems (${spec.maxItems})`);
  read.firstRow ??= head;
}

/**
 * A row as text, to tell a page by its first row. JSON.stringify recurses: a row nested some thousands of levels deep (valid JSON
 * of a few kB, in a field no schema reads) overflows the stack, and is told by nothing: no page is taken for another by it.
 */
function rowText(row: unknown, page: number): string | undefined {
  try {
    return JSON.stringify(row);
  } catch {
    return `\u0000row too deep to encode, page ${page}`;
  }
}

export function maxPages(bound: ListingBound): number {
  return Math.max(1, Math.ceil(bound.maxItems / bound.pageSize));
}

/** The error of a listing that would pass its page bound; `what` says what the service did. */
export function tooManyPages(endpoint: string, what: string, bound: ListingBound, status?: number): ApiError {
  const limit = `more than ${maxPages(bound)} pages of ${bound.pageSize}, the bound maxListingItems (${bound.maxItems}) sets`;
  return new ApiError('protocol', endpoint, `${what}: ${limit}`, status);
}

/** The service's advice: no random paging over more resources than this. */
export const RANDOM_PAGING_LIMIT = 10_000;

const randomEnvelope = z.object({
  content: z.array(z.unknown()),
  page: z
    .object({
      number: z.number().int().nullish(),
      totalPages: z.number().int().nonnegative().nullish(),
      totalElements: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
});

const serialEnvelope = z.object({ content: z.array(z.unknown()), page: z.object({ queryState: z.string().min(1) }) });

/**
 * Random paging: page 1, then, once it tells how many pages there are, a window of `concurrency` pages ahead of the caller (a
 * listing of 20 pages neither takes 20 round trips one after another nor holds every connection of the target), yielded in
 * page order. The window bounds the pages held as well as those in flight: a page is requested only when one is handed over,
 * so a caller slower than the service never has the whole listing parsed in memory. Pages are requested before a page's items
 * are handed over, so they load while the caller works. A page's own totalPages is honoured as it comes: a list that grew is
 * read on, one that shrank ends there. Pages requested and not used (the caller stopped, a page failed) are aborted.
 */
export async function* randomPages<S extends z.ZodType>(
  fetchPage: PageFetcher,
  spec: ListSpec<S>,
  signal: AbortSignal | undefined,
  concurrency = 1,
  firstPage?: JsonAnswer,
  read: PagesRead = { rows: 0 },
): AsyncGenerator<Array<z.output<S>>> {
  const ahead = new Map<number, ReturnType<PageFetcher>>();
  /** aborts the pages requested ahead; made when the first is (most listings have one page) */
  let abandon: LinkedSignal | undefined;
  let requested = 0;
  let readable = 1; // pages known to exist: page 1 until its answer tells more
  const request = (page: number): ReturnType<PageFetcher> => {
    if (page === 1) return firstPage ? Promise.resolve(firstPage) : fetchPage(randomPageRequest(spec, 1, signal));
    abandon ??= new LinkedSignal(signal);
    return fetchPage(randomPageRequest(spec, page, abandon.signal));
  };
  const fillWindow = (): void => {
    while (requested < readable && ahead.size < Math.max(1, concurrency)) {
      const page = ++requested;
      const answer = request(page);
      answer.catch(() => undefined); // a page never used is not an unhandled rejection; a used one throws where awaited
      ahead.set(page, answer);
    }
  };
  try {
    fillWindow();
    for (let page = 1; ; page++) {
      const answer = ahead.get(page) as ReturnType<PageFetcher>; // requested: the window starts at the next page to hand over
      ahead.delete(page);
      const { body, status } = await answer;
      const checked = checkRandomPage(body, status, page, spec, read);
      const { items, last, cut } = checked;
      readable = checked.readable;
      if (!last && !cut) fillWindow(); // before handing the items over: the next pages load while the caller works
      if (items.length > 0) yield items;
      if (last || cut) return;
    }
  } finally {
    if (ahead.size > 0) abandon?.abort();
    abandon?.dispose();
  }
}

function randomPageRequest(spec: ListSpec<z.ZodType>, page: number, signal: AbortSignal | undefined): GetRequest {
  const path = spec.path + queryString({ filter: spec.filter?.toString(), page, pageSize: spec.pageSize });
  return { endpoint: spec.endpoint, path, idempotent: true, signal };
}

/** One random page checked: its items, whether it is the last, whether the listing is cut here, and the pages there are to read. */
function checkRandomPage<S extends z.ZodType>(body: unknown, status: number, page: number, spec: ListSpec<S>, read: PagesRead) {
  const envelope = validate(body, spec.endpoint, randomEnvelope, status);
  checkPage(spec, read, page, envelope.content, envelope.page?.number, status);
  // Without page information the answer is the whole list: page 2 of a service that ignores `page` would repeat it forever.
  // A count of results without a count of pages still tells the pages there are (at the pageSize asked): it is not the whole list.
  const total = envelope.page?.totalElements;
  const givenPages = envelope.page?.totalPages;
  const totalPages = givenPages ?? (total != null ? Math.ceil(total / spec.pageSize) : undefined);
  if (totalPages != null && totalPages > maxPages(spec)) {
    throw tooManyPages(spec.endpoint, `random paging: the service claims ${totalPages} pages`, spec, status);
  }
  const items = validateItems(spec.schema, envelope.content, spec.endpoint, 'content');
  const last = totalPages == null || page >= totalPages;
  if (!last && envelope.content.length === 0) {
    // A list that shrank says so with its totalPages; an empty page before the end is a service that would be asked forever.
    const problem = `random paging: page ${page} is empty but the service claims ${totalPages} pages`;
    throw new ApiError('protocol', spec.endpoint, problem, status);
  }
  if (givenPages == null && !last && envelope.content.length < spec.pageSize && !spec.pagesCountResults) {
    // pages counted at the pageSize asked: a shorter page before the end is a service paging at another size
    const held = `holds ${envelope.content.length} of pageSize ${spec.pageSize}`;
    const problem = `random paging: page ${page} ${held} but ${total} results are counted`;
    throw new ApiError('protocol', spec.endpoint, problem, status);
  }
  const readable = last ? page : readablePages(spec, totalPages, total, status);
  const cut = !last && page >= readable;
  if (cut) spec.cutAtLimit?.(total ?? 0, page * spec.pageSize);
  return { items, last, cut, readable };
}

/** The pages to read: all up to the 10,000th result (the service refuses more); past it, cut there with cutAtLimit, else an error. */
function readablePages(spec: ListSpec<z.ZodType>, totalPages: number, total: number | null | undefined, status: number): number {
  if (total == null || total <= RANDOM_PAGING_LIMIT) return totalPages;
  if (!spec.cutAtLimit) {
    const problem = `random paging over ${total} results: the service allows it for at most ${RANDOM_PAGING_LIMIT}`;
    throw new ApiError('protocol', spec.endpoint, problem, status);
  }
  return Math.floor(RANDOM_PAGING_LIMIT / spec.pageSize);
}

export async function* serialPages<S extends z.ZodType>(
  fetchPage: PageFetcher,
  spec: ListSpec<S>,
  signal: AbortSignal | undefined,
): AsyncGenerator<Array<z.output<S>>> {
  const used = new Set<string>();
  const read: PagesRead = { rows: 0 };
  // The filter is sent with BEGIN only: the token stands for the query from then on.
  let query: Record<string, string | number | undefined> = {
    filter: spec.filter?.toString(),
    pageSize: spec.pageSize,
    queryState: 'BEGIN',
  };
  for (let page = 1; ; page++) {
    const { body, status } = await fetchPage({
      endpoint: spec.endpoint,
      path: spec.path + queryString(query),
      // BEGIN may be repeated freely; a later token is spent by its first use.
      idempotent: page === 1,
      signal,
    });
    const envelope = validate(body, spec.endpoint, serialEnvelope, status);
    const next = envelope.page.queryState;
    checkPage(spec, read, page, envelope.content, undefined, status);
    const items = validateItems(spec.schema, envelope.content, spec.endpoint, 'content');
    if (items.length > 0) yield items;
    if (next === 'END') return;
    if (envelope.content.length === 0) {
      // An empty page that does not end the listing: a service answering so would be asked forever.
      throw new ApiError('protocol', spec.endpoint, `serial paging: page ${page} is empty but its queryState is not END`, status);
    }
    if (next === 'BEGIN' || used.has(next)) {
      const problem = `serial paging: the service returned queryState "${next.slice(0, 40)}" again; a token is never sent twice`;
      throw new ApiError('protocol', spec.endpoint, problem, status);
    }
    if (page >= maxPages(spec)) throw tooManyPages(spec.endpoint, `serial paging did not reach END after ${page} pages`, spec, status);
    used.add(next);
    query = { pageSize: spec.pageSize, queryState: next };
  }
}

/** Page 1 of a random-paged query, and the totalElements it claims (undefined when the service does not say). */
export async function firstRandomPage(fetchPage: PageFetcher, spec: ListSpec<z.ZodType>, signal: AbortSignal | undefined) {
  const answer = await fetchPage(randomPageRequest(spec, 1, signal));
  return { answer, total: validate(answer.body, spec.endpoint, randomEnvelope, answer.status).page?.totalElements ?? undefined };
}

export async function collectAll<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) for (const item of page) all.push(item);
  return all;
}
