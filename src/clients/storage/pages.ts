/** The storage API's list answers (`{<key>: [...], paging_info}`, pages 0-based), and the link response an incomplete path returns. */
import { z } from 'zod';
import { ApiError } from '../errors';
import { checkPage, maxPages, tooManyPages, type PagesRead } from '../management/paging';
import { validate, validateItems } from '../response';
import { pagingInfoSchema, type PagingInfo } from './schemas';

const linkResponseSchema = z.object({
  code: z.number().optional(),
  details: z.string().optional(),
  link: z.array(z.object({ rel: z.string().optional(), href: z.string().optional() }).loose()),
});

/** Throws a `protocol` error naming the path when `body` is a link response rather than the object carrying `expectedKey`. */
export function rejectLinkResponse(body: unknown, expectedKey: string, endpoint: string, path: string): void {
  if (!body || typeof body !== 'object' || Array.isArray(body) || expectedKey in body) return;
  const links = linkResponseSchema.safeParse(body);
  if (!links.success) return;
  const rels = links.data.link.map((l) => l.rel ?? '?').slice(0, 8).join(', ');
  const pathOnly = path.split('?', 1)[0] as string;
  const what = `${pathOnly} returned a link response (links: ${rels || 'none'}) instead of data: the path is incomplete`;
  throw new ApiError('protocol', endpoint, what);
}

/** One page: the entries under `key` that pass their checks, all it held (skipped ones too: what paging counts), and paging_info. */
export function readPage<T extends z.ZodType>(
  body: unknown,
  key: string,
  itemSchema: T,
  endpoint: string,
  path: string,
): { items: Array<z.output<T>>; rows: unknown[]; paging: PagingInfo | undefined } {
  rejectLinkResponse(body, key, endpoint, path);
  const schema = z.object({
    [key]: z.array(z.unknown()).nullish(),
    paging_info: pagingInfoSchema.nullish(),
  });
  const page = validate(body, endpoint, schema);
  const entries = page[key] as unknown[] | null | undefined;
  const paging = (page.paging_info as PagingInfo | null | undefined) ?? undefined;
  if (!entries) {
    if (paging?.total_entries === 0) return { items: [], rows: [], paging };
    throw new ApiError('protocol', endpoint, `unexpected response shape: ${key}: missing`);
  }
  return { items: validateItems(itemSchema, entries, endpoint, key), rows: entries, paging };
}

/**
 * The page after `page`, or undefined when the list is complete; `read` counts the items read, skipped ones included (checkPage).
 * Without paging_info a short page is the whole list and a full one an error (the rest cannot be found). A list ends within
 * `maxItems` and never at an empty page short of total_entries: a server that never stops paging is refused, not asked forever.
 */
export function nextPage(
  page: number,
  received: { rows: unknown[]; paging: PagingInfo | undefined },
  read: PagesRead,
  bound: { endpoint: string; pageSize: number; maxItems: number },
): number | undefined {
  const { paging, rows } = received;
  const { endpoint, maxItems } = bound;
  checkPage(bound, read, page, rows, paging?.current_page);
  if (!paging) {
    if (rows.length < bound.pageSize) return undefined;
    const why = `page ${page} is full (${rows.length} items) but carries no paging_info: cannot tell whether more follow`;
    throw new ApiError('protocol', endpoint, why);
  }
  if (paging.total_entries > maxItems) {
    throw new ApiError('protocol', endpoint, `the server counts ${paging.total_entries} entries: more than maxListingItems (${maxItems})`);
  }
  if (read.rows >= paging.total_entries) return undefined;
  if (rows.length === 0) {
    const what = `page ${page} is empty after ${read.rows} of the ${paging.total_entries} entries the server counts`;
    throw new ApiError('protocol', endpoint, what);
  }
  if (page + 1 >= maxPages(bound)) throw tooManyPages(endpoint, `${read.rows} entries after ${page + 1} pages`, bound);
  return page + 1;
}
