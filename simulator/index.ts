import { SimulatedClock } from './core/clock';
import type { SimContext } from './core/context';
import { Faults } from './core/faults';
import { SeededRandom } from './core/random';
import { startApiServer } from './core/server';
import type { ApiServer } from './core/server';
import { Stats } from './core/stats';
import { generateSelfSignedCert } from './core/tls';
import { createManagementApp, createManagementEstate, managementErrorBody } from './management';
import { createReplicationApp, replicationErrorBody } from './replication/app';
import { ReplicationEstate } from './replication/model';
import { createStorageApplianceApp, createStorageCenterApp, storageErrorBody } from './storage/app';
import { StorageEstate } from './storage/model';
import { DEFAULT_ESTATE_SIZE } from './types';
import type { EstateSize, Simulator, SimulatorOptions } from './types';

export const DEFAULT_USERNAME = 'admin';
export const DEFAULT_PASSWORD = 'Simulat0r!pass';
export const DEFAULT_TOKEN_TTL_SECONDS = 28_800;
/** the management service's account with the User role (least privilege), with DEFAULT_PASSWORD unless told otherwise */
export const DEFAULT_USER_ROLE_USERNAME = 'monitor';

/** The running simulator, with the concrete clock (it also offers onAdvance). */
export interface RunningSimulator extends Simulator {
  clock: SimulatedClock;
  faults: Faults;
  stats: Stats;
}

/**
 * Starts the four simulated servers in-process on 127.0.0.1: the management
 * service, the replication plugin, a storage management center (all storage
 * systems) and one stand-alone storage appliance (the first system).
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const size: EstateSize = { ...DEFAULT_ESTATE_SIZE, ...options.size };
  // The stand-alone appliance server is the first storage system, so there must be one.
  if (!(size.storageSystems >= 1)) throw new RangeError('size.storageSystems must be at least 1');
  const startTime = options.startTime ?? new Date(Math.floor(Date.now() / 1000) * 1000);
  const clock = new SimulatedClock(startTime);
  const random = new SeededRandom(options.seed ?? 1);
  const faults = new Faults();
  const stats = new Stats();
  const ctx: SimContext = {
    clock,
    faults,
    random,
    username: options.username ?? DEFAULT_USERNAME,
    password: options.password ?? DEFAULT_PASSWORD,
    tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS,
    userRoleUsername: options.userRoleUsername ?? DEFAULT_USER_ROLE_USERNAME,
    strictRestValidation: options.strictRestValidation ?? true,
  };

  // Each estate forks its own stream from `random`, so their order here does not matter.
  const management = createManagementEstate(random, size, clock, { typeNames: options.managementTypeNames ?? 'seed' });
  const replication = new ReplicationEstate(random, size, clock);
  const storage = new StorageEstate(random, size, clock);

  const tls = options.https ? await generateSelfSignedCert() : undefined;
  const ports = options.ports ?? {};
  const common = { faults, stats, ...(tls ? { tls } : {}) };
  const spelling = options.apiSpelling ?? 'seed';

  const started: ApiServer[] = [];
  const start = async (spec: Parameters<typeof startApiServer>[0]): Promise<ApiServer> => {
    const server = await startApiServer(spec);
    started.push(server);
    return server;
  };
  try {
    const [managementServer, replicationServer, centerServer, applianceServer] = await Promise.all([
      start({ ...common, api: 'management', app: createManagementApp(management, ctx), port: ports.management, errorBody: managementErrorBody }),
      start({ ...common, api: 'replication', app: createReplicationApp(replication, ctx, spelling), port: ports.replication, errorBody: replicationErrorBody }),
      start({ ...common, api: 'storage', app: createStorageCenterApp(storage, ctx, spelling), port: ports.storageCenter, errorBody: storageErrorBody }),
      start({
        ...common,
        api: 'storage',
        app: createStorageApplianceApp(storage, 0, ctx, spelling),
        port: ports.storageAppliance,
        errorBody: storageErrorBody,
      }),
    ]);
    let closing: Promise<void> | undefined;
    return {
      urls: {
        management: managementServer.url,
        replication: replicationServer.url,
        storageCenter: centerServer.url,
        storageAppliance: applianceServer.url,
      },
      ...(tls ? { caCertPem: tls.cert } : {}),
      username: ctx.username,
      password: ctx.password,
      clock,
      faults,
      stats,
      estate: { management, replication, storage },
      close: () => (closing ??= Promise.all(started.map((s) => s.close())).then(() => undefined)),
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.close()));
    throw err;
  }
}

export type { Simulator, SimulatorOptions } from './types';
