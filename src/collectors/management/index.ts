import type { CollectorDefinition } from '../types';

/** The management collectors, in the order they are listed on the landing page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const MANAGEMENT_COLLECTORS: readonly CollectorDefinition<'management', any>[] = [];
