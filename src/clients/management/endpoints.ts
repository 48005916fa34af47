/** Path templates of the management service endpoints read: they label request metrics and spans, so never hold a concrete id. */
export const ENDPOINTS = {
  login: '/api/v2/login',
  logout: '/api/v2/logout',
  assets: '/api/v2/assets',
  asset: '/api/v2/assets/{id}',
  assetCopies: '/api/v2/assets/{id}/copies',
  latestCopies: '/api/v2/latest-copies',
  copyMetrics: '/api/v2/copy-metrics',
  activities: '/api/v2/activities',
  auditLogs: '/api/v2/audit-logs',
  protectionPolicies: '/api/v2/protection-policies',
  complianceDetails: '/api/v2/compliance-details',
  inventorySources: '/api/v2/inventory-sources',
  cloudDrSessions: '/api/v2/cloud-dr-sessions',
  alerts: '/api/v2/alerts',
} as const;

/** The concrete path of an endpoint template: `{id}` replaced by the id, escaped. */
export function withId(endpoint: string, id: string): string {
  return endpoint.replace('{id}', encodeURIComponent(id));
}
