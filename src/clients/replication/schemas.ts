/**
 * Shapes of the replication plugin's records (seed: "Resources and their fields"); unknown fields are stripped, enumerations
 * are open strings. Required: what identifies a record or gives a metric's value; optional: what the seed says may be omitted
 * and what only feeds labels, so one record missing a label does not void a list. Fields no metric reads are left out: they
 * cannot fail a listing (the seed's repSystemId is rpSystemId on the products; bandwidthPriority is a name or a number).
 */
import { z } from 'zod';
import { idString, optionalString } from '../response';

export const VM_STATUSES = ['ACTIVE', 'PAUSED'] as const;
export const VM_ROLES = ['PRODUCTION', 'REPLICA'] as const;

export const repClusterSchema = z.object({
  id: idString,
  name: z.string(),
  isRegistered: z.boolean(),
  /** OK when connected; omitted for a cluster that is not registered */
  connectionStatus: optionalString,
});

export const groupSchema = z.object({ name: z.string() });

export const protectedVmSchema = z.object({
  id: idString,
  name: z.string(),
  groupName: optionalString,
  repClusterName: optionalString,
  guestOsType: optionalString,
  role: z.string(),
  status: z.string(),
  // A disk's fields feed only the disk series: one missing costs those series, not the VM and its status.
  vmdks: z.array(z.object({ included: z.boolean().nullish(), sizeInMB: z.number().nonnegative().nullish() })).nullish(),
});

export type RepCluster = z.output<typeof repClusterSchema>;
export type ConsistencyGroup = z.output<typeof groupSchema>;
export type ProtectedVm = z.output<typeof protectedVmSchema>;
