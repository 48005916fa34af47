import type { CollectorDefinition } from '../types';

/** The storage collectors, in the order they are listed on the landing page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const STORAGE_COLLECTORS: readonly CollectorDefinition<'storage', any>[] = [];
