/** The storage API's list answers (`{<key>: [...], paging_info}`, pages 0-based), and the link response an incomplete path returns. */
import { z } from 'zod';
import { ApiError } from '../errors';
import { maxPages, tooManyPages } from '../management/paging';
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

/** One page: the entries under `key` that pass their checks, how many it held (skipped ones too: what paging counts), and paging_info. */
export function readPage<T extends z.ZodType>(
  body: unknown,
  key: string,
  itemSchema: T,
  endpoint: string,
  path: string,
): { items: Array<z.output<T>>; read: number; paging: PagingInfo | undefined } {
  rejectLinkResponse(body, key, endpoint, path);
  const schema = z.object({
    [key]: z.array(z.unknown()).nullish(),
    paging_info: pagingInfoSchema.nullish(),
  });
  const page = validate(body, endpoint, schema);
  const entries = page[key] as unknown[] | null | undefined;
  const paging = (page.paging_info as PagingInfo | null | undefined) ?? undefined;
  if (!entries) {
    if (paging?.total_entries === 0) return { items: [], read: 0, paging };
    throw new ApiError('protocol', endpoint, `unexpected response shape: ${key}: missing`);
  }
  return { items: validateItems(itemSchema, entries, endpoint, key), read: entries.length, paging };
}

/**
 * The page after `page`, or undefined when the list is complete; `collected` counts the items read, skipped ones included.
 * Without paging_info a short page is the whole list and a full one an error (the rest cannot be found). A list ends within
 * `maxItems` and never at an empty page short of total_entries: a server that never stops paging is refused, not asked forever.
 */
export function nextPage(
  page: number,
  size: number,
  received: { read: number; paging: PagingInfo | undefined },
  collected: number,
  endpoint: string,
  maxItems: number,
): number | undefined {
  const { paging, read } = received;
  if (!paging) {
    if (read < size) return undefined;
    const why = `page ${page} is full (${read} items) but carries no paging_info: cannot tell whether more follow`;
    throw new ApiError('protocol', endpoint, why);
  }
  if (paging.current_page !== undefined && paging.current_page !== page) {
    throw new ApiError('protocol', endpoint, `asked for page ${page} and got page ${paging.current_page}`);
  }
  if (paging.total_entries > maxItems) {
    throw new ApiError('protocol', endpoint, `the server counts ${paging.total_entries} entries: more than maxListingItems (${maxItems})`);
  }
  if (collected >= paging.total_entries) return undefined;
  if (read === 0) {
    const what = `page ${page} is empty after ${collected} of the ${paging.total_entries} entries the server counts`;
    throw new ApiError('protocol', endpoint, what);
  }
  const bound = { maxItems, pageSize: size };
  if (page + 1 >= maxPages(bound)) throw tooManyPages(endpoint, `${collected} entries after ${page + 1} pages`, bound);
  return page + 1;
}
