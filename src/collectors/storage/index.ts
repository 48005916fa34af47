import type { AnyCollector } from '../types';
import { alertsCollector } from './alerts';
import { capacityCollector } from './capacity';
import { replicationContextsCollector } from './replication';
import { systemCollector } from './system';

/** The storage collectors, in the order they are listed on the landing page. */
export const STORAGE_COLLECTORS: readonly AnyCollector<'storage'>[] = [
  systemCollector,
  capacityCollector,
  alertsCollector,
  replicationContextsCollector,
];
