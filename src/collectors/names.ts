import type { KnownCollectors } from '../config/load';

/**
 * The collectors' names by target kind, for the configuration check. Apart from the registry so that the serving thread, which
 * checks every configuration it loads, never loads the collectors and their clients (registry.test.ts holds the lists equal).
 */
export const KNOWN_COLLECTORS: KnownCollectors = {
  management: [
    'assets', 'latest-copies', 'copy-metrics', 'copies', 'activities', 'audit-logs', 'protection-policies',
    'compliance', 'inventory-sources', 'cloud-dr-sessions', 'alerts',
  ],
  replication: ['clusters', 'groups', 'vms'],
  storage: ['system', 'capacity', 'alerts', 'replication'],
};
