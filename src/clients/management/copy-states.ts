/**
 * Copies in a deletion state. The service lists them beside the live copies
 * (the vendor's own scripts filter them out with `not state in (...)`); no
 * copy count, size or newest-copy time includes them. CATALOG_DELETE_FAILED
 * is a copy already deleted whose catalog entry could not be removed.
 */
import { isIn, not, type Filter } from './filter';

export const DELETED_COPY_STATES: readonly string[] = ['DELETED', 'SOFT_DELETED', 'DELETING', 'DELETE_FAILED', 'CATALOG_DELETE_FAILED'];

const DELETED = new Set(DELETED_COPY_STATES);

/** The filter term that leaves deletion-state copies out (`not state in (...)`: a copy without a state is live). */
export function liveCopiesOnly(): Filter {
  return not(isIn('state', DELETED_COPY_STATES));
}

/**
 * Whether a copy the service listed is live. Checked after reading too: a
 * service that ignores the filter term must not make deleted copies count.
 */
export function isLiveCopy(copy: { state?: string | null }): boolean {
  return copy.state == null || !DELETED.has(copy.state);
}
