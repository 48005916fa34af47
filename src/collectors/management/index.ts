import type { AnyCollector } from '../types';
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
 * The management collectors, in the order they are listed on the landing page.
 * A collector's `after` names only collectors listed before it (a first round
 * waits for those; test/collectors/registry.test.ts checks it).
 */
export const MANAGEMENT_COLLECTORS: readonly AnyCollector<'management'>[] = [
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
