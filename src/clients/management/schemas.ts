/**
 * Item schemas of the management service listings, checked item by item. Unknown fields are stripped (not kept, to save
 * memory on large estates) and enumerations are plain strings, so an unknown value passes through as a label value. Required
 * is only what the products' models require (api-notes: an asset needs name and type, a management alert its id; a copy and
 * a cloud DR session nothing) and what a record is keyed by; the collectors leave out what depends on a missing field rather
 * than guess. An item with a required field missing or of the wrong type is skipped and counted, never a wrong number.
 * Timestamps become epoch milliseconds.
 */
import { z } from 'zod';

/** The service's ISO 8601 forms. Date.parse alone also reads "12" or "May 3" as some date: a wrong timestamp, not an error. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** An ISO 8601 timestamp string as epoch milliseconds, NaN when it is none. */
export function parseTimestamp(text: string): number {
  return ISO_8601.test(text) ? Date.parse(text) : Number.NaN;
}

const timestamp = z.string().transform((text, ctx) => {
  const ms = parseTimestamp(text);
  if (!Number.isNaN(ms)) return ms;
  ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text.slice(0, 40))} is not an ISO 8601 timestamp` });
  return z.NEVER;
});

const nullableString = z.string().nullish();

/** what an asset says of its policy, or an activity of its asset or policy */
const reference = z.object({ id: nullableString, name: nullableString, type: nullableString });

export const loginResponseSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive().nullish() });

export const assetSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  type: z.string(),
  /** bytes; optional: without it the asset simply has no size series */
  size: z.number().nonnegative().nullish(),
  deleted: z.boolean().nullish(),
  /** not in the seed's asset table (api-notes: PROTECTED, UNPROTECTED, EXCLUDED) */
  protectionStatus: nullableString,
  protectionPolicyId: nullableString,
  /** null or missing: the service's index gives no copy time, and latest-copies is asked (assets.ts) */
  lastAvailableCopyTime: timestamp.nullish(),
  updatedAt: timestamp.nullish(),
  /** the products' top-level policy reference; wins over _embedded (present only with expand) */
  protectionPolicy: reference.nullish(),
  _embedded: z.object({ protectionPolicy: reference.nullish() }).nullish(),
});
export type Asset = z.output<typeof assetSchema>;

/**
 * What the copies collector reads, and the id: a checked timestamp costs a transform per copy (200,000 in a cold round), and
 * a field no metric uses should not fail the listing.
 */
export const copySchema = z.object({
  id: z.string().min(1),
  /** optional in the model: without it the copy counts, its location's size series is left out */
  size: z.number().nonnegative().nullish(),
  /** optional in the model: without it the copy counts under the location "unknown" */
  location: nullableString,
  retentionTime: timestamp.nullish(),
  /** a deletion state (copy-states.ts) or null / absent for a live copy */
  state: nullableString,
});
export type Copy = z.output<typeof copySchema>;

export const latestCopySchema = z.object({ assetId: z.string().min(1), createTime: timestamp, state: nullableString });
export type LatestCopy = z.output<typeof latestCopySchema>;

const stageCopyMetrics = z.object({
  stageType: z.string(),
  copyCount: z.number().nullish(),
  latestCopyTime: timestamp.nullish(),
  oldestCopyTime: timestamp.nullish(),
});

export const copyMetricsSchema = z.object({
  assetId: z.string().min(1),
  totalNumbers: z.number().nullish(),
  stageCopyMetrics: z.array(stageCopyMetrics).nullish(),
});
export type CopyMetrics = z.output<typeof copyMetricsSchema>;

export const activitySchema = z.object({
  id: z.string().min(1),
  category: z.string(),
  classType: nullableString,
  state: z.string(),
  updateTime: timestamp,
  startTime: timestamp.nullish(),
  endTime: timestamp.nullish(),
  /** milliseconds */
  duration: z.number().nonnegative().nullish(),
  result: z.object({ status: nullableString, bytesTransferred: z.number().nonnegative().nullish() }).nullish(),
  stats: z.object({ bytesTransferred: z.number().nonnegative().nullish() }).nullish(),
  // Read for the activity spans forwarded over OTLP (src/otlp): no metric uses them.
  name: z.string().nullish(),
  parentId: z.string().nullish(),
  subcategory: z.string().nullish(),
  asset: reference.nullish(),
  protectionPolicy: reference.nullish(),
});
export type Activity = z.output<typeof activitySchema>;

export const auditLogSchema = z.object({
  id: z.string().min(1),
  auditType: z.string(),
  changedTime: timestamp,
  // Read for the audit log records forwarded over OTLP (src/otlp): no metric uses them.
  changedBy: z.object({ id: z.string().nullish(), username: z.string().nullish() }).nullish(),
  changedObject: z.object({ id: z.string().nullish(), resourceName: z.string().nullish(), resourceType: z.string().nullish() }).nullish(),
  changeDescription: z.string().nullish(),
  messageID: z.string().nullish(),
});
export type AuditLog = z.output<typeof auditLogSchema>;

export const protectionPolicySchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  type: nullableString,
  enabled: z.boolean().nullish(),
  summary: z.object({ numberOfAssets: z.number().int().nonnegative().nullish() }).nullish(),
  /** read by src/collectors/management/policy-rpo.ts, which turns any shape into an RPO or a logged reason, never a failed listing */
  stages: z.unknown().optional(),
});
export type ProtectionPolicy = z.output<typeof protectionPolicySchema>;

const objectiveStatus = z.object({ status: nullableString });

/** The seed names the result field verifiedObjectives.status (release 19.7), api-notes a flat `status`: both are read, the seed's wins. */
export const complianceSchema = z.object({
  assetId: nullableString,
  protectionPolicyId: nullableString,
  policyName: nullableString,
  /** the policy stage (objective) the record verifies */
  stageId: nullableString,
  /** each record is one run (history): the latest by completionTime is the asset's compliance now */
  completionTime: timestamp.nullish(),
  createdAt: timestamp.nullish(),
  status: nullableString,
  verifiedObjectives: z.union([objectiveStatus, z.array(objectiveStatus)]).nullish(),
});
export type ComplianceDetail = z.output<typeof complianceSchema>;

export const inventorySourceSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  type: nullableString,
  lastDiscovered: timestamp.nullish(),
  lastDiscoveryResult: z.object({ status: nullableString }).nullish(),
});
export type InventorySource = z.output<typeof inventorySourceSchema>;

/** The model requires no field (api-notes): a session without drType or status counts under "unknown", one without id still counts. */
export const cloudDrSessionSchema = z.object({ id: nullableString, drType: nullableString, status: nullableString });
export type CloudDrSession = z.output<typeof cloudDrSessionSchema>;

/** Only id is required by the model: an alert without severity counts under "unknown". */
export const alertSchema = z.object({
  id: z.string().min(1),
  severity: nullableString,
  acknowledgement: z.object({ acknowledgeState: nullableString }).nullish(),
});
export type Alert = z.output<typeof alertSchema>;
