import { ApiError } from '../../clients/errors';
import type { StorageSystemRef } from '../../clients/storage/client';
import type { CollectResult, CollectorContext, Sample } from '../types';

/** What a per-system collector remembers: each system's last good samples, to bridge its failures. */
export interface PerSystemState {
  systems: Record<string, { collectedAtMs: number; samples: Sample[] }>;
}

/**
 * Runs `read` for every system of the target (one appliance, or each system of a management center), isolating failures:
 * - each system's outcome is dataprotect_storage_system_collector_success{system_id, collector};
 * - a failing system is logged (warn) and its last good samples are kept up to `staleAfter`, the rule for a failing collector;
 * - when discovery or every system fails, the run fails: a target-level problem shows in dataprotect_collector_success and dataprotect_up;
 * - when this run's own time limit ends it, the run fails rather than passing off an incomplete answer as system failures.
 */
export async function collectPerSystem(
  collector: string,
  ctx: CollectorContext<'storage', PerSystemState>,
  signal: AbortSignal,
  read: (system: StorageSystemRef, signal: AbortSignal) => Promise<Sample[]>,
): Promise<CollectResult<PerSystemState>> {
  const { systems } = await ctx.client.discover(signal);
  const outcomes = await Promise.allSettled(systems.map((system) => read(system, signal)));
  signal.throwIfAborted();

  const nowMs = ctx.now().getTime();
  const state: PerSystemState = { systems: {} };
  const samples: Sample[] = [];
  const failures: Array<{ system: StorageSystemRef; error: unknown }> = [];
  outcomes.forEach((outcome, index) => {
    const system = systems[index] as StorageSystemRef;
    samples.push({
      name: 'dataprotect_storage_system_collector_success',
      labels: { target: ctx.target.name, system_id: system.id, collector },
      value: outcome.status === 'fulfilled' ? 1 : 0,
    });
    if (outcome.status === 'fulfilled') {
      samples.push(...outcome.value);
      state.systems[system.id] = { collectedAtMs: nowMs, samples: outcome.value };
      return;
    }
    failures.push({ system, error: outcome.reason });
    const previous = ctx.state?.systems[system.id];
    if (previous && nowMs - previous.collectedAtMs <= ctx.settings.staleAfter) {
      samples.push(...previous.samples);
      state.systems[system.id] = previous;
    }
  });

  if (failures.length > 0 && failures.length === systems.length) {
    const first = failures[0]?.error;
    if (failures.length === 1 || !(first instanceof ApiError)) throw first;
    // Keep the first error's kind, so that an unreachable estate still counts as the target being down.
    throw new ApiError(first.kind, first.endpoint, `all ${failures.length} storage systems failed; first: ${first.message}`, first.status, {
      cause: first,
    });
  }
  for (const { system, error } of failures) {
    ctx.logger.warn(
      { system_id: system.id, system_name: system.name, err: error },
      'storage system not collected: its other systems are, and its last good series are kept up to staleAfter',
    );
  }
  return { samples, state, items: systems.length };
}
