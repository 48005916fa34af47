import type { TargetKind } from '../config/load';
import type { KnownCollectors } from '../config/load';
import type { AnyCollector } from './types';
import { MANAGEMENT_COLLECTORS } from './management';
import { REPLICATION_COLLECTORS } from './replication';
import { STORAGE_COLLECTORS } from './storage';

/**
 * Every collector, per target kind. Adding a collector = one file plus one line in its kind's index.ts.
 */
export const COLLECTORS: Record<TargetKind, readonly AnyCollector[]> = {
  management: MANAGEMENT_COLLECTORS,
  replication: REPLICATION_COLLECTORS,
  storage: STORAGE_COLLECTORS,
};

export function collectorsFor(kind: TargetKind): readonly AnyCollector[] {
  return COLLECTORS[kind];
}

export const KNOWN_COLLECTORS: KnownCollectors = {
  management: COLLECTORS.management.map((c) => c.name),
  replication: COLLECTORS.replication.map((c) => c.name),
  storage: COLLECTORS.storage.map((c) => c.name),
};
