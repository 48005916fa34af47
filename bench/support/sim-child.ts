/**
 * The simulator in a process of its own, for the benchmark and the soak:
 * started by startChild('bench/support/sim-child.ts', {seed, size}) it
 * answers commands over IPC: its request statistics, the clock, fault rules,
 * and the truths the benchmark's lower bound and the soak's checks need.
 * (The simulator CLI prints human-readable lines only and offers no access to
 * statistics or faults, hence this wrapper around startSimulator.)
 */
import { startSimulator } from '../../simulator';
import type { ApiName, EstateSize, FaultRule } from '../../simulator/types';
import { truthBetween, type Truth } from '../../test/reliability/soak-driver';
import { childArgument, serve } from './ipc';

export interface SimChildOptions {
  seed?: number;
  size?: Partial<EstateSize>;
  /** management token lifetime, seconds */
  tokenTtlSeconds?: number;
  startTime?: string;
}

export interface SimHello {
  urls: { management: string; replication: string; storageCenter: string; storageAppliance: string };
  username: string;
  password: string;
  startedInSeconds: number;
  clock: string;
  /** the estate's start on the simulated clock */
  startTimeMs: number;
}

/** A fault rule as it crosses the IPC channel: a RegExp path travels as its source. */
export type WireFaultRule = Omit<FaultRule, 'path'> & { path?: string; pathPattern?: string };

export interface StatsReport {
  total: number;
  bytes: number;
  byApi: Record<ApiName, { requests: number; bytes: number }>;
}

/** Listing sizes the benchmark's lower bound is computed from. */
export interface ListingSizes {
  assets: number;
  /** non-deleted assets, and how many pages of copies each would take */
  liveAssets: number;
  copyPages: number;
  copyMetrics: number;
  /** activities of the given class types updated within the window */
  activitiesInWindow: number;
  auditInWindow: number;
  alerts: number;
  policies: number;
  compliance: number;
  inventorySources: number;
  cloudDrSessions: number;
  storageSystems: number;
  replicatedVms: number;
}

const API_NAMES: ApiName[] = ['management', 'replication', 'storage'];

async function main(): Promise<void> {
  const options = childArgument<SimChildOptions>();
  const started = performance.now();
  const sim = await startSimulator({
    seed: options.seed ?? 1,
    size: options.size ?? {},
    ...(options.tokenTtlSeconds ? { tokenTtlSeconds: options.tokenTtlSeconds } : {}),
    ...(options.startTime ? { startTime: new Date(options.startTime) } : {}),
  });
  const management = sim.estate.management;

  serve(
    {
      stats: (): StatsReport => {
        const byApi = Object.fromEntries(API_NAMES.map((api) => [api, { requests: sim.stats.total(api), bytes: sim.stats.bytes(api) }])) as StatsReport['byApi'];
        return { total: sim.stats.total(), bytes: sim.stats.bytes(), byApi };
      },
      resetStats: () => sim.stats.reset(),
      now: () => sim.clock.now().toISOString(),
      advance: (ms: number) => {
        sim.clock.advance(ms);
        return sim.clock.now().toISOString();
      },
      addFault: (rule: WireFaultRule) => {
        const { pathPattern, ...rest } = rule;
        sim.faults.add({ ...rest, ...(pathPattern ? { path: new RegExp(pathPattern) } : {}) } as FaultRule);
      },
      clearFaults: () => sim.faults.clear(),
      knobs: (knobs: { tokenExpiresAfterRequests?: number; replicationMaxConcurrent?: number }) => {
        sim.faults.tokenExpiresAfterRequests = knobs.tokenExpiresAfterRequests;
        sim.faults.replicationMaxConcurrent = knobs.replicationMaxConcurrent;
      },
      listingSizes: (args: { pageSize: number; windowMs: number; classTypes: string[] }): ListingSizes => {
        const now = sim.clock.now().getTime();
        const assets = management.assets();
        const live = assets.filter((asset) => asset.deleted !== true);
        let copyPages = 0;
        for (const asset of live) copyPages += Math.max(1, Math.ceil(management.copies(asset.id).length / args.pageSize));
        const windowStart = now - args.windowMs;
        // Activities are indexed by createTime: look back far enough for long-running ones.
        const activities = management
          .activities({ since: new Date(windowStart - 7 * 86_400_000) })
          .filter((a) => args.classTypes.includes(a.classType) && Date.parse(a.updateTime) >= windowStart);
        return {
          assets: assets.length,
          liveAssets: live.length,
          copyPages,
          copyMetrics: live.length,
          activitiesInWindow: activities.length,
          auditInWindow: management.auditEntries({ since: new Date(windowStart) }).length,
          alerts: management.alerts().length,
          policies: management.policies().length,
          // the listing is history: every verification run is read
          compliance: management.complianceHistory().length,
          inventorySources: management.inventorySources().length,
          cloudDrSessions: management.cloudDrSessions().length,
          storageSystems: sim.estate.storage.systems.length,
          replicatedVms: sim.estate.replication.vms.length,
        };
      },
      nowMs: () => sim.clock.now().getTime(),
      /** the soak's truth: completed activities and audit entries with event time in (since, until] */
      truth: (args: { sinceMs: number; untilMs: number }): Truth => truthBetween(sim, args.sinceMs, args.untilMs),
      memory: () => process.memoryUsage(),
      close: async () => {
        await sim.close();
        setImmediate(() => process.exit(0));
      },
    },
    {
      urls: sim.urls,
      username: sim.username,
      password: sim.password,
      startedInSeconds: (performance.now() - started) / 1000,
      clock: sim.clock.now().toISOString(),
      startTimeMs: management.startTime.getTime(),
    } satisfies SimHello,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
