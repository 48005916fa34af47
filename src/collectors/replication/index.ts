import type { CollectorDefinition } from '../types';

/** The replication collectors, in the order they are listed on the landing page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const REPLICATION_COLLECTORS: readonly CollectorDefinition<'replication', any>[] = [];
