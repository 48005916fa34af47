import type { AnyCollector } from '../types';
import { clustersCollector } from './clusters';
import { groupsCollector } from './groups';
import { vmsCollector } from './vms';

/** The replication collectors, in the order they are listed on the landing page. */
export const REPLICATION_COLLECTORS: readonly AnyCollector<'replication'>[] = [clustersCollector, groupsCollector, vmsCollector];
