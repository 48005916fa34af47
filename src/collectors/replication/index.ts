import type { CollectorDefinition } from '../types';
import { clustersCollector } from './clusters';
import { groupsCollector } from './groups';
import { vmsCollector } from './vms';

/** The replication collectors, in the order they are listed on the landing page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const REPLICATION_COLLECTORS: readonly CollectorDefinition<'replication', any>[] = [clustersCollector, groupsCollector, vmsCollector];
