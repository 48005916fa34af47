import { defineCollector } from '../types';
import { Tally, UNKNOWN_LABEL } from '../shared/tally';
import { uniqueBy } from '../shared/unique';
import { collectPerSystem, type PerSystemState } from './per-system';

/**
 * Active alerts per system by severity and class, only combinations that occur: all would be mostly zeros that no `> 0` rule needs.
 * Each alert once: a list that shifts while it is paged repeats one on the next page.
 */
export const alertsCollector = defineCollector<'storage', PerSystemState>({
  name: 'alerts',
  kind: 'storage',
  description: 'Active alerts per storage system, by severity and class.',
  defaultSchedule: '* * * * *',
  metrics: ['dataprotect_storage_system_collector_success', 'dataprotect_storage_alerts'],
  collect(ctx, signal) {
    return collectPerSystem('alerts', ctx, signal, async (system, systemSignal) => {
      const counts = new Tally<[string, string]>();
      const alerts = uniqueBy(await ctx.client.activeAlerts(system, systemSignal), (alert) => alert.id).unique;
      for (const alert of alerts) counts.add([alert.severity || UNKNOWN_LABEL, alert.class ?? '']);
      return counts.samples('dataprotect_storage_alerts', { target: ctx.target.name, system_id: system.id }, ['severity', 'class']);
    });
  },
});
