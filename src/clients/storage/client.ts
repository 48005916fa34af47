import type { z } from 'zod';
import type { TargetConfig } from '../../config/load';
import { ApiClient, type ClientDeps } from '../api-client';
import { ApiError, isStatusError } from '../errors';
import { queryString } from '../query-string';
import { validate } from '../response';
import { nextPage, readPage, rejectLinkResponse } from './pages';
import type { PagesRead } from '../management/paging';
import { plainSystemId, systemPath, systemPathSegment, systemsPath, type ResourcePath } from './paths';
import { SpellingResolver } from '../spelling';
import {
  capacitySampleSchema,
  tierCapacitySchema,
  topLevelCapacitySchema,
  managedSystemSchema,
  replicationContextSchema,
  storageAlertSchema,
  systemDetailsSchema,
  type CapacitySample,
  type CapacityTier,
  type TierCapacity,
  type ManagedSystem,
  type ReplicationContext,
  type StorageAlert,
  type SystemDetails,
} from './schemas';
import type { TokenApi } from '../token-session';
import { SingleFlight } from '../../util/single-flight';
import { sharedFlight } from '../run-requests';

export * from './schemas';
export { systemPath, type ResourcePath } from './paths';

/** One system the exporter collects: the appliance itself, or one system managed by a management center. */
export interface StorageSystemRef {
  /** the system's id in plain form (its UUID when known): the `system_id` label */
  id: string;
  /** the SYSTEM-ID path segment: "0" for an appliance addressing itself, else the URL-encoded id */
  pathId: string;
  name: string;
  model?: string;
  version?: string;
}

export interface StorageDiscovery {
  mode: 'appliance' | 'center';
  systems: StorageSystemRef[];
}

/** SYSTEM-ID 0: an appliance addressing itself; invalid on a management center, so never sent to one. */
export const LOCAL_SYSTEM_ID = '0';
/** How long a discovery answer is reused: collectors of one target run close together and need the same list. */
export const DISCOVERY_TTL_MS = 60_000;
/** The real appliance and management center refuse pages larger than this; the seed sets no limit. */
export const MAX_STORAGE_PAGE_SIZE = 200;
/** Statuses of GET /rest/v1.0/store-systems by which a server says it lists no managed systems (it is an appliance). */
const NO_SYSTEM_LIST_STATUSES = [400, 404, 405, 501];
const ACTIVE = { filter: 'status=active' };

/** Client of the storage appliance / management center API (port 3009): a token session, lists read through `paging_info`. */
export class StorageClient extends ApiClient {
  /** the spelling this target speaks: `known` once configured or detected */
  readonly spelling = new SpellingResolver(this.target.apiSpelling, 'storage', this.deps.logger);
  private cachedDiscovery: { atMs: number; value: StorageDiscovery } | undefined;
  private readonly discovery = new SingleFlight(async () => {
    const value = await this.findSystems();
    this.cachedDiscovery = { atMs: Date.now(), value };
    return value;
  });

  constructor(target: TargetConfig, deps: ClientDeps) {
    super(target, deps, STORAGE_LOGIN);
  }

  /**
   * The systems to collect, reused for DISCOVERY_TTL_MS; concurrent callers share one discovery.
   * - `storageMode: appliance`: SYSTEM-ID 0, identified by `GET /rest/v1.0/system` (its uuid).
   * - `storageMode: center`: every system of `GET /rest/v1.0/store-systems`, collected by its id.
   * - unset: both, and chooseMode; a missing system list (400, 404, 405, 501) makes it an appliance, any other failure fails:
   *   nothing is guessed, and SYSTEM-ID 0 is never sent to a server that lists managed systems.
   */
  async discover(signal?: AbortSignal): Promise<StorageDiscovery> {
    const cached = this.cachedDiscovery;
    if (cached && Date.now() - cached.atMs < DISCOVERY_TTL_MS) return cached.value;
    const abortError = (): ApiError =>
      new ApiError('aborted', '/rest/v1.0/store-systems', 'aborted by the collector time limit while waiting for the system discovery');
    // A discovery another run started is this run's wait on the source too (run-requests.ts).
    return sharedFlight(this.discovery, signal, abortError);
  }

  /** GET /rest/v1.0/system: the server itself (on a management center, the center). */
  async systemDetails(signal?: AbortSignal): Promise<SystemDetails> {
    const resource = { path: '/rest/v1.0/system', endpoint: '/rest/v1.0/system' };
    const body = await this.getJson(resource, signal);
    rejectLinkResponse(body, 'name', resource.endpoint, resource.path);
    return validate(body, resource.endpoint, systemDetailsSchema);
  }

  /** GET /rest/v1.0/store-systems (dd-systems): the systems a management center manages. */
  async managedSystems(signal?: AbortSignal): Promise<ManagedSystem[]> {
    return this.spelling.resolve((spelling) =>
      this.list(systemsPath('/rest/v1.0', spelling), {}, 'system', managedSystemSchema, signal),
    );
  }

  /** The newest capacity of a tier (stats/capacity?tier=&sort=-collection_epoch&size=1); undefined if the system has no such tier. */
  async latestCapacity(system: StorageSystemRef, tier: CapacityTier, signal?: AbortSignal): Promise<TierCapacity | undefined> {
    return this.spelling.resolve(async (spelling) => {
      const resource = systemPath('/rest/v2.0', system.pathId, 'stats/capacity', spelling);
      const body = await this.getJson(resource, signal, { tier, sort: '-collection_epoch', size: 1 });
      const { items } = readPage(body, 'stats_capacity', capacitySampleSchema, resource.endpoint, resource.path);
      // The newest first is asked for; taking the maximum also survives a server that ignores sort on a short list.
      let newest: CapacitySample | undefined;
      for (const sample of items) if (!newest || sample.collection_epoch > newest.collection_epoch) newest = sample;
      return newest && capacityOfTier(newest, tier, resource.endpoint);
    });
  }

  /** Active alerts: `GET /rest/v1.0/store-systems/{id}/alerts?filter=status=active`, every page. */
  async activeAlerts(system: StorageSystemRef, signal?: AbortSignal): Promise<StorageAlert[]> {
    const alerts = await this.spelling.resolve((spelling) =>
      this.list(systemPath('/rest/v1.0', system.pathId, 'alerts', spelling), ACTIVE, 'alert_list', storageAlertSchema, signal),
    );
    // The filter is the server's job; checking again keeps cleared alerts out if it is ignored
    // (an alert without a status was served for status=active, and counts).
    return alerts.filter((alert) => alert.status === undefined || alert.status.toLowerCase() === 'active');
  }

  /** MTree replication contexts: `GET /api/v1/store-systems/{id}/mtree-replications`. */
  async replicationContexts(system: StorageSystemRef, signal?: AbortSignal): Promise<ReplicationContext[]> {
    return this.spelling.resolve((spelling) =>
      this.list(systemPath('/api/v1', system.pathId, 'mtree-replications', spelling), {}, 'contexts', replicationContextSchema, signal),
    );
  }

  private async findSystems(): Promise<StorageDiscovery> {
    const mode = this.target.storageMode;
    if (mode === 'appliance') return applianceDiscovery(await this.systemDetails());
    if (mode === 'center') return { mode: 'center', systems: toRefs(await this.managedSystems()) };
    // The system list, or undefined when the server says it has no such resource.
    const listing = this.managedSystems().catch((error: unknown) => {
      if (isStatusError(error, ...NO_SYSTEM_LIST_STATUSES)) return undefined;
      throw error;
    });
    const [listed, details] = await Promise.all([listing, this.systemDetails()]);
    const discovery = chooseMode(listed, details);
    if (this.cachedDiscovery?.value.mode !== discovery.mode) {
      this.deps.logger.info({ mode: discovery.mode, systems: discovery.systems.length }, 'storage mode discovered');
    }
    return discovery;
  }

  /** Every item of a paged list under `key`; public for resources the methods above do not cover yet (e.g. mtrees). */
  async list<T extends z.ZodType>(
    resource: ResourcePath,
    query: Record<string, string>,
    key: string,
    itemSchema: T,
    signal?: AbortSignal,
  ): Promise<z.output<T>[]> {
    const { endpoint } = resource;
    const bound = { endpoint, pageSize: Math.min(this.target.pageSize, MAX_STORAGE_PAGE_SIZE), maxItems: this.target.maxListingItems };
    const items: z.output<T>[] = [];
    const read: PagesRead = { rows: 0 };
    for (let page: number | undefined = 0; page !== undefined; ) {
      const body = await this.getJson(resource, signal, { ...query, page, size: bound.pageSize });
      const received = readPage(body, key, itemSchema, endpoint, resource.path);
      items.push(...received.items);
      page = nextPage(page, received, read, bound);
    }
    return items;
  }

  private async getJson(resource: ResourcePath, signal?: AbortSignal, query: Record<string, string | number> = {}): Promise<unknown> {
    return (await this.fetchJson({ endpoint: resource.endpoint, path: resource.path + queryString(query), signal })).body;
  }
}

const AUTH_PATH = '/rest/v1.0/auth';
const TOKEN_HEADER = 'x-dd-auth-token';

/** The storage login (api-notes): POST answers 201 with the token in X-DD-AUTH-TOKEN, valid until refused; DELETE ends the session. */
const STORAGE_LOGIN: TokenApi = {
  loginPath: AUTH_PATH,
  logout: { method: 'DELETE', path: AUTH_PATH },
  carry: (token) => ({ [TOKEN_HEADER]: token }),
  issued(response) {
    const header = response.headers[TOKEN_HEADER];
    const token = Array.isArray(header) ? header[0] : header;
    if (!token) {
      throw new ApiError('protocol', AUTH_PATH, `login answered ${response.status} without an X-DD-AUTH-TOKEN header`, response.status);
    }
    return { value: token, expiresInSeconds: undefined };
  },
};

/**
 * One tier's capacity from a sample: from `tier_capacity_usage[]` alone when it is there (the real products; a tier it lacks
 * the system does not have), since the top level beside it could be another tier's or the total; else from the top level.
 */
export function capacityOfTier(sample: CapacitySample, tier: CapacityTier, endpoint: string): TierCapacity | undefined {
  const { collection_epoch } = sample;
  if (sample.tier_capacity_usage) {
    const usage = sample.tier_capacity_usage.find((entry) => (entry as { tier?: unknown } | null)?.tier === tier);
    return usage === undefined ? undefined : tierCapacity(collection_epoch, validate(usage, endpoint, tierCapacitySchema));
  }
  const figures = validate(sample, endpoint, topLevelCapacitySchema);
  if (figures.physical_capacity) return tierCapacity(collection_epoch, { ...figures, physical_capacity: figures.physical_capacity });
  const problem = `the capacity sample of ${collection_epoch} carries neither physical_capacity nor tier_capacity_usage`;
  throw new ApiError('protocol', endpoint, problem);
}

/**
 * Auto mode: a server listing systems other than itself is a management center, each listed system collected by its id; one
 * listing nothing or only itself (a stand-alone appliance lists its own id) is an appliance, collected as SYSTEM-ID 0.
 */
export function chooseMode(listed: readonly ManagedSystem[] | undefined, self: SystemDetails): StorageDiscovery {
  const selfId = self.uuid !== undefined ? plainSystemId(self.uuid) : undefined;
  const managed = (listed ?? []).filter((system) => plainSystemId(system.id) !== selfId);
  return managed.length > 0 ? { mode: 'center', systems: toRefs(managed) } : applianceDiscovery(self);
}

/** A tier's capacity figures, whatever else `figures` carries. */
function tierCapacity(collection_epoch: number, figures: Omit<TierCapacity, 'collection_epoch'>): TierCapacity {
  const { physical_capacity, logical_capacity, compression_factor } = figures;
  return { collection_epoch, physical_capacity, logical_capacity, compression_factor };
}

function applianceDiscovery(details: SystemDetails): StorageDiscovery {
  // The uuid is the id a management center lists the appliance under; "0" only if the appliance gives none.
  const id = details.uuid ? plainSystemId(details.uuid) : LOCAL_SYSTEM_ID;
  return { mode: 'appliance', systems: [systemRef(id, LOCAL_SYSTEM_ID, details)] };
}

/** One ref per distinct id (a system listed twice would give duplicate series). */
function toRefs(systems: readonly ManagedSystem[]): StorageSystemRef[] {
  const seen = new Set<string>();
  return systems
    .filter((system) => !seen.has(plainSystemId(system.id)) && Boolean(seen.add(plainSystemId(system.id))))
    .map((system) => systemRef(plainSystemId(system.id), systemPathSegment(system.id), system));
}

function systemRef(id: string, pathId: string, { name, model, version }: SystemDetails | ManagedSystem): StorageSystemRef {
  return { id, pathId, name, model, version };
}
