import { REPLICATION_STATES, systemPath, type ReplicationContext } from '../../clients/storage/client';
import { countSkippedItem } from '../../clients/run-requests';
import { stateSet } from '../shared/state-set';
import { uniqueBy } from '../shared/unique';
import { defineCollector, type Sample } from '../types';
import { collectPerSystem, type PerSystemState } from './per-system';
import { SERVICE_TIME_AHEAD_MS } from '../shared/service-clock';


/** MTree replication contexts per system: lag (now minus syncEpoch) and state. */
export const replicationContextsCollector = defineCollector<'storage', PerSystemState>({
  name: 'replication',
  kind: 'storage',
  description: 'MTree replication contexts per storage system: lag since the last sync and state.',
  defaultSchedule: '* * * * *',
  metrics: [
    'dataprotect_storage_system_collector_success',
    'dataprotect_storage_replication_lag_seconds',
    'dataprotect_storage_replication_state',
  ],
  collect(ctx, signal) {
    return collectPerSystem('replication', ctx, signal, async (system, systemSignal) => {
      const { unique: contexts, duplicates } = uniqueBy(await ctx.client.replicationContexts(system, systemSignal), (c) => c.id);
      if (duplicates.length > 0) {
        ctx.logger.warn({ system_id: system.id, duplicates }, 'replication contexts listed twice: keeping the first');
      }
      const nowSeconds = ctx.now().getTime() / 1000;
      const endpoint = systemPath('/api/v1', '{id}', 'mtree-replications', ctx.client.spelling.known ?? 'seed').endpoint;
      return contexts.flatMap((context) => {
        if (!syncEpochAhead(context, nowSeconds)) return contextSamples(ctx.target.name, system.id, context, nowSeconds);
        const clock = `the exporter's clock (${Math.floor(nowSeconds)})`;
        const problem = `syncEpoch ${context.syncEpoch} is later than ${clock}: no past instant in seconds`;
        countSkippedItem({ endpoint, id: context.id.slice(0, 64), problem, reason: 'invalid_value' });
        return [];
      });
    });
  },
});

/** A syncEpoch that has not happened (milliseconds, a corrupt record): read as lag 0 it would say "in sync", and the alert not fire. */
function syncEpochAhead(context: ReplicationContext, nowSeconds: number): boolean {
  return context.syncEpoch !== undefined && context.syncEpoch > nowSeconds + SERVICE_TIME_AHEAD_MS / 1000;
}

/**
 * No lag series for a context never synchronised (no or zero syncEpoch): "now minus 1970" is no lag. A syncEpoch a little ahead
 * reads as 0.
 */
function contextSamples(target: string, systemId: string, context: ReplicationContext, nowSeconds: number): Sample[] {
  const labels = { target, system_id: systemId, context: context.id };
  const samples: Sample[] = stateSet(REPLICATION_STATES, context.state).map(([state, value]) => ({
    name: 'dataprotect_storage_replication_state',
    labels: { ...labels, state },
    value,
  }));
  if (context.syncEpoch !== undefined && context.syncEpoch > 0) {
    samples.push({ name: 'dataprotect_storage_replication_lag_seconds', labels, value: Math.max(0, nowSeconds - context.syncEpoch) });
  }
  return samples;
}
