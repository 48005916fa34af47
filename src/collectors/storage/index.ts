import type { CollectorDefinition } from '../types';
import { alertsCollector } from './alerts';
import { capacityCollector } from './capacity';
import { replicationContextsCollector } from './replication';
import { systemCollector } from './system';

/** The storage collectors, in the order they are listed on the landing page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const STORAGE_COLLECTORS: readonly CollectorDefinition<'storage', any>[] = [
  systemCollector,
  capacityCollector,
  alertsCollector,
  replicationContextsCollector,
];
