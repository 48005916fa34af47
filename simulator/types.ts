/**
 * The simulator's public surface, shared by its three API servers, the tests,
 * the benchmarks and the demo. Implementations live beside this file:
 *   core/      clock, seeded random numbers, fault injection, HTTP(S) server bootstrap, request stats
 *   management/  the backup management service (/api/v2)
 *   replication/ the VM replication plugin (/api/v1)
 *   storage/     the storage appliance and management center (port 3009 style API)
 *   index.ts   startSimulator(): starts all of them in-process on loopback
 *   cli.ts     `npm run simulator`: the same from the command line
 */

export type ApiName = 'management' | 'replication' | 'storage';

/**
 * How the storage and replication servers spell their paths and fields: as
 * the seeds do, or as the real products do (`dd-systems`, `rp-clusters`,
 * `rpClusterName` ..., with the products' habits: capacity only per tier,
 * at most 200 items a storage page, 400 to an unknown name in `fields=`).
 */
export type ApiSpelling = 'seed' | 'product';

/** Size knobs of the generated estate. Same seed + same sizes = same estate. */
export interface EstateSize {
  assets: number;
  copiesPerAsset: number;
  /** share (0..1) of assets that have no copy at all */
  assetsWithoutCopyShare: number;
  activitiesPerDay: number;
  /** audit entries already present at start (spread over the 7 days before start) */
  auditEntries: number;
  auditEntriesPerDay: number;
  protectionPolicies: number;
  replicatedVms: number;
  replicationClusters: number;
  storageSystems: number;
}

export const DEFAULT_ESTATE_SIZE: EstateSize = {
  assets: 200,
  copiesPerAsset: 5,
  assetsWithoutCopyShare: 0.05,
  activitiesPerDay: 500,
  auditEntries: 1000,
  auditEntriesPerDay: 200,
  protectionPolicies: 5,
  replicatedVms: 50,
  replicationClusters: 3,
  storageSystems: 2,
};

export interface SimulatorOptions {
  seed?: number;
  size?: Partial<EstateSize>;
  /** serve HTTPS with a self-signed certificate generated at start (see Simulator.caCertPem) */
  https?: boolean;
  /** listen ports; 0 (default) picks a free one */
  ports?: Partial<Record<'management' | 'replication' | 'storageCenter' | 'storageAppliance', number>>;
  /** the simulated wall clock at start; default: the real now rounded down to the second */
  startTime?: Date;
  /** credentials every API accepts (default admin / Simulat0r!pass) */
  username?: string;
  password?: string;
  /** management service token lifetime in seconds (default 28800) */
  tokenTtlSeconds?: number;
  /** spelling of the storage and replication servers (default seed) */
  apiSpelling?: ApiSpelling;
  /** the management service's asset type names: the seeds' (HV_VIRTUAL_MACHINE, default) or the real products' (VMWARE_VIRTUAL_MACHINE) */
  managementTypeNames?: 'seed' | 'product';
  /** the management service's account with the User role (default "monitor", the same password) */
  userRoleUsername?: string;
  /** the management service answers 400 to query parameters an endpoint does not document, as with strict REST validation on (default true) */
  strictRestValidation?: boolean;
}

/** The simulated clock. Advancing it makes the estate evolve (new copies, activities, audit entries, VM pauses, capacity growth). */
export interface SimClock {
  now(): Date;
  advance(ms: number): void;
  set(time: Date): void;
}

/**
 * One fault rule. A request matches when its API matches and its URL pathname
 * matches `path` (a string is a substring match, a RegExp is tested).
 * The first `skip` matching requests pass untouched; then the fault applies to
 * the next `times` matching requests (default: every one).
 */
export interface FaultRule {
  api: ApiName;
  path?: string | RegExp;
  method?: string;
  skip?: number;
  times?: number;
  fault:
    | {
        kind: 'status';
        status: number;
        retryAfterSeconds?: number;
        /** the error body's reason, built from the request: an upstream that echoes what it was sent */
        reason?: (request: EchoedRequest) => string;
        /** the body as encoders that escape & < > / and non-ASCII write it (Go's \u0026, Java's \/, Python's ensure_ascii) */
        escaped?: true;
      }
    | { kind: 'malformed' } // 200 with a body that is not valid JSON
    // answers normally, but the listed item of that id (or at that index: a list without ids) has `field` set to `value`
    | { kind: 'item'; id?: string; index?: number; field: string; value: unknown }
    | { kind: 'hang' } // never answers (until the simulator closes)
    | { kind: 'latency'; ms: number } // answers normally after a delay
    | { kind: 'reset' }; // destroys the socket without an answer
}

/** What a `status` fault's reason may quote: the request's headers and its body as sent. */
export interface EchoedRequest {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FaultInjector {
  add(rule: FaultRule): void;
  clear(): void;
  /** management service: every token expires after this many authenticated requests (undefined = only by time) */
  tokenExpiresAfterRequests?: number;
  /** replication plugin: answer 429 when more than this many requests are in flight (undefined = never) */
  replicationMaxConcurrent?: number;
}

/** Counts of requests the simulator answered, by API, method and concrete path (query excluded). */
export interface RequestStats {
  total(api?: ApiName): number;
  /** requests whose pathname matches (substring or RegExp) */
  count(api: ApiName, path: string | RegExp, method?: string): number;
  /** bytes of response bodies sent */
  bytes(api?: ApiName): number;
  /** requests refused for breaking a rule of the API (the management service: random paging past 10,000 results) */
  refusals(api?: ApiName): number;
  reset(): void;
}

export interface SimulatorUrls {
  /** e.g. http://127.0.0.1:PORT (no trailing slash); the API lives under /api/v2 */
  management: string;
  replication: string;
  /** management center: lists its managed systems; SYSTEM-ID 0 is invalid there */
  storageCenter: string;
  /** one stand-alone appliance (the first storage system), addressed as SYSTEM-ID 0 */
  storageAppliance: string;
}

export interface Simulator {
  urls: SimulatorUrls;
  /** PEM of the self-signed certificate when started with https */
  caCertPem?: string;
  username: string;
  password: string;
  clock: SimClock;
  faults: FaultInjector;
  stats: RequestStats;
  /** the estate's current truth (see estate types in each API's folder) */
  estate: SimulatedEstate;
  close(): Promise<void>;
}

/**
 * Truth accessors. Each API folder defines its own model types; tests compute
 * expected metric values from these.
 */
export interface SimulatedEstate {
  management: import('./management/model').ManagementEstate;
  replication: import('./replication/model').ReplicationEstate;
  storage: import('./storage/model').StorageEstate;
}
