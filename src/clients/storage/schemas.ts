/**
 * Shapes of the storage appliance / management center answers read (api-notes). Unknown fields are stripped, enumerations are
 * open strings (seed, Versioning 4), and label-only fields optional, so one record missing one does not void a whole list.
 */
import { z } from 'zod';
import { idString, optional, optionalString } from '../response';

const optionalNumber = optional(z.number());
const bytes = z.number().nonnegative();

export const CAPACITY_TIERS = ['active', 'cloud', 'total'] as const;
export const REPLICATION_STATES = ['NORMAL', 'INITIALIZING', 'RESYNCING', 'RECOVERING', 'UNINITIALIZED', 'CONNECTING'] as const;

/** physical_capacity: all three parts are what the capacity metrics are made of. */
export const physicalCapacitySchema = z.object({ total: bytes, used: bytes, available: bytes });
/** logical_capacity: only `used` (pre-compression data stored) is read; total/available are often absent. */
export const logicalCapacitySchema = z.object({ total: bytes.optional(), used: bytes, available: bytes.optional() });

/** paging_info of paged lists; page numbers are 0-based. */
export const pagingInfoSchema = z.object({ current_page: optionalNumber, total_entries: z.number().int().nonnegative() });

export const systemDetailsSchema = z.object({ name: z.string(), version: optionalString, model: optionalString, uuid: optionalString });

/** An item of GET /rest/v1.0/store-systems on a management center. */
export const managedSystemSchema = z.object({ id: idString, name: z.string(), model: optionalString, version: optionalString });

/** A `tier_capacity_usage[]` item or a `tier=` sample's top level; physical_capacity is optional (no physical series then). */
export const tierCapacitySchema = z.object({
  tier: z.string(),
  physical_capacity: optional(physicalCapacitySchema),
  logical_capacity: optional(logicalCapacitySchema),
  compression_factor: optionalNumber,
});

/**
 * A stats_capacity item: the asked tier's figures at the top level (seed) or only in `tier_capacity_usage[]` (real products), of
 * which "only collection_epoch is always present". The figures are checked once the asked tier's are found (client.ts
 * capacityOfTier): an entry of another tier (archive) can be partial without costing the sample.
 */
export const capacitySampleSchema = z.looseObject({ collection_epoch: z.number(), tier_capacity_usage: optional(z.array(z.unknown())) });
/** The figures of a stats_capacity item at its top level (the seed's form). */
export const topLevelCapacitySchema = tierCapacitySchema.omit({ tier: true });

/** An item of alert_list; severity and status are optional in the model. */
export const storageAlertSchema = z.object({ id: idString, severity: optionalString, class: optionalString, status: optionalString });

/** An item of contexts (mtree replication contexts). */
export const replicationContextSchema = z.object({
  id: idString,
  state: z.string(),
  /** seconds since the epoch of the last synchronisation; absent before the first */
  syncEpoch: optionalNumber,
});

export type PagingInfo = z.output<typeof pagingInfoSchema>;
export type SystemDetails = z.output<typeof systemDetailsSchema>;
export type ManagedSystem = z.output<typeof managedSystemSchema>;
export type CapacitySample = z.output<typeof capacitySampleSchema>;
/** What the capacity metrics are made of, for one tier, and when it was collected. */
export type TierCapacity = Omit<z.output<typeof tierCapacitySchema>, 'tier'> & { collection_epoch: number };
export type StorageAlert = z.output<typeof storageAlertSchema>;
export type ReplicationContext = z.output<typeof replicationContextSchema>;
export type CapacityTier = (typeof CAPACITY_TIERS)[number];
