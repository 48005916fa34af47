import type { TargetKind } from '../config/load';
import type { AnyCollector } from './types';
import { activitiesCollector } from './management/activities';
import { alertsCollector } from './management/alerts';
import { assetsCollector } from './management/assets';
import { auditLogsCollector } from './management/audit-logs';
import { cloudDrSessionsCollector } from './management/cloud-dr-sessions';
import { complianceCollector } from './management/compliance';
import { copiesCollector } from './management/copies';
import { copyMetricsCollector } from './management/copy-metrics';
import { inventorySourcesCollector } from './management/inventory-sources';
import { latestCopiesCollector } from './management/latest-copies';
import { protectionPoliciesCollector } from './management/protection-policies';
import { clustersCollector } from './replication/clusters';
import { groupsCollector } from './replication/groups';
import { vmsCollector } from './replication/vms';
import { alertsCollector as storageAlertsCollector } from './storage/alerts';
import { capacityCollector } from './storage/capacity';
import { replicationContextsCollector } from './storage/replication';
import { systemCollector } from './storage/system';

/** Every collector per target kind, in landing-page order; `after` names only collectors listed before (registry.test.ts checks it). */
export const COLLECTORS: { readonly [K in TargetKind]: readonly AnyCollector<K>[] } = {
  management: [
    assetsCollector,
    latestCopiesCollector,
    copyMetricsCollector,
    copiesCollector,
    activitiesCollector,
    auditLogsCollector,
    protectionPoliciesCollector,
    complianceCollector,
    inventorySourcesCollector,
    cloudDrSessionsCollector,
    alertsCollector,
  ],
  replication: [clustersCollector, groupsCollector, vmsCollector],
  storage: [systemCollector, capacityCollector, storageAlertsCollector, replicationContextsCollector],
};
