import type { CollectorDefinition } from '../types';
import { activitiesCollector } from './activities';
import { alertsCollector } from './alerts';
import { assetsCollector } from './assets';
import { auditLogsCollector } from './audit-logs';
import { cloudDrSessionsCollector } from './cloud-dr-sessions';
import { complianceCollector } from './compliance';
import { copiesCollector } from './copies';
import { copyMetricsCollector } from './copy-metrics';
import { inventorySourcesCollector } from './inventory-sources';
import { latestCopiesCollector } from './latest-copies';
import { protectionPoliciesCollector } from './protection-policies';

/**
 * The management collectors, in the order they are listed on the landing page
 * (also the order in which `--once` and the benchmark run them: the assets
 * list and the copy fingerprints are published before the copies are read).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const MANAGEMENT_COLLECTORS: readonly CollectorDefinition<'management', any>[] = [
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
];
