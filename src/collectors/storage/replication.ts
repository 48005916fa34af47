import { REPLICATION_STATES, type ReplicationContext } from '../../clients/storage/client';
import { stateSet } from '../shared/state-set';
import { uniqueBy } from '../shared/unique';
import { defineCollector, type Sample } from '../types';
import { collectPerSystem, type PerSystemState } from './per-system';

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
      return contexts.flatMap((context) => contextSamples(ctx.target.name, system.id, context, nowSeconds));
    });
  },
});

/** No lag series for a context never synchronised (no or zero syncEpoch): "now minus 1970" is no lag. A syncEpoch ahead reads as 0. */
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
