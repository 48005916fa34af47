/**
 * The bound on one listing: a target's `maxListingItems` is the most items a
 * listing may return, and the most pages it may take follows from it and the
 * page size. Every paging loop ends within it even if the service never says
 * the list is complete: a confused or hostile service gets a few hundred
 * requests and a collector error, not a request storm.
 */
import { ApiError } from './errors';

export interface ListingBound {
  /** the target's maxListingItems */
  maxItems: number;
  pageSize: number;
}

/** The most pages a listing may take. */
export function maxPages(bound: ListingBound): number {
  return Math.max(1, Math.ceil(bound.maxItems / bound.pageSize));
}

/** The error of a listing that would pass its page bound; `what` says what the service did. */
export function tooManyPages(endpoint: string, what: string, bound: ListingBound, status?: number): ApiError {
  const limit = `more than ${maxPages(bound)} pages of ${bound.pageSize}, the bound maxListingItems (${bound.maxItems}) sets`;
  return new ApiError('protocol', endpoint, `${what}: ${limit}`, status);
}
