/**
 * Copies in a deletion state, listed beside the live ones (the vendor's own scripts filter them out with `not state in (...)`)
 * and in no copy count, size or newest-copy time. CATALOG_DELETE_FAILED: deleted, but the catalog entry could not be removed.
 */
import { isIn, not, type Filter } from './filter';

export const DELETED_COPY_STATES: readonly string[] = ['DELETED', 'SOFT_DELETED', 'DELETING', 'DELETE_FAILED', 'CATALOG_DELETE_FAILED'];

const DELETED = new Set(DELETED_COPY_STATES);

/** The filter term that leaves deletion-state copies out (`not state in (...)`: a copy without a state is live). */
export function liveCopiesOnly(): Filter {
  return not(isIn('state', DELETED_COPY_STATES));
}

/** Whether a listed copy is live; checked after reading too, so that a service ignoring the filter cannot make deleted copies count. */
export function isLiveCopy(copy: { state?: string | null }): boolean {
  return copy.state == null || !DELETED.has(copy.state);
}
