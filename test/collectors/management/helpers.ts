/** Shared set-up of the management client and collector tests: a simulator, a client with short retry waits, collector runs on the simulator's clock. */
import type { Logger } from 'pino';
import { ManagementClient } from '../../../src/clients/management/client';
import type { RequestObserver } from '../../../src/clients/http';
import type { CollectResult, CollectorDefinition, Forwarding } from '../../../src/collectors/types';
import type { ExporterConfig, TargetConfig } from '../../../src/config/load';
import { startSimulator, type RunningSimulator } from '../../../simulator';
import type { EstateSize } from '../../../simulator/types';
import { runCollector, silentLogger, simulatorTarget } from '../../support/collect';

export async function startManagementSimulator(size: Partial<EstateSize>, seed = 11): Promise<RunningSimulator> {
  // A fixed start (a Wednesday, 10:00 UTC) keeps the daily copy-expiry job (02:00 UTC) out of short clock advances.
  return startSimulator({ seed, size: { replicatedVms: 1, storageSystems: 1, ...size }, startTime: new Date('2026-11-18T10:00:00Z') });
}

export interface Harness {
  target: TargetConfig;
  client: ManagementClient;
  /** request events seen by the client (endpoint template and status code) */
  requests: Array<{ endpoint: string; code: string }>;
}

export function managementHarness(sim: RunningSimulator, overrides: Record<string, unknown> = {}): Harness {
  const target = simulatorTarget(sim, 'management', overrides);
  const requests: Harness['requests'] = [];
  const observer: RequestObserver = { onRequest: ({ endpoint, code }) => requests.push({ endpoint, code }) };
  const client = new ManagementClient(target, { logger: silentLogger, observer, http: { backoffBaseMs: 5 } });
  return { target, client, requests };
}

/** Runs a collector the way the scheduler does, on the simulator's clock. */
export function run<S>(
  definition: CollectorDefinition<'management', S>,
  sim: RunningSimulator,
  harness: Harness,
  options: {
    state?: S;
    shared?: Map<string, unknown>;
    settings?: Partial<ExporterConfig['collection']>;
    timeoutMs?: number;
    collectingSince?: Date;
    logger?: Logger;
    timeLimit?: { readonly totalMs: number; leftMs(): number };
    forwards?: Forwarding;
    scheduleIntervalMs?: number;
  } = {},
): Promise<CollectResult<S>> {
  return runCollector(definition, {
    target: harness.target,
    client: harness.client,
    now: () => sim.clock.now(),
    ...options,
  });
}

/** requests for one asset's copies the simulator answered */
export function perAssetCopyRequests(sim: RunningSimulator): number {
  return sim.stats.count('management', /^\/api\/v2\/assets\/[^/]+\/copies$/);
}


/**
 * What the copies collector should show of one asset's copies, per location:
 * the count and the total size of the live copies whose retention has not
 * passed; a copy without location counts under "unknown", and a location
 * with a copy without size has no size (-1 here).
 */
export function copyTruthByLocation(copies: ReadonlyArray<{ location?: string; size?: number; retentionTime: string }>, nowMs: number): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const copy of copies) {
    if (Date.parse(copy.retentionTime) <= nowMs) continue;
    const location = copy.location ?? 'unknown';
    const [count, bytes] = out.get(location) ?? [0, 0];
    out.set(location, [count + 1, bytes < 0 || copy.size === undefined ? -1 : bytes + copy.size]);
  }
  return out;
}
