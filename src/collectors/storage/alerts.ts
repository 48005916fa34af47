import { defineCollector } from '../types';
import { Tally, UNKNOWN_LABEL } from '../shared/tally';
import { collectPerSystem, type PerSystemState } from './per-system';

/**
 * Active alerts per system by severity and class. Only combinations that occur get a series: severities times classes would be
 * many zeros, and an alert rule on `> 0` needs none of them.
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
      const alerts = await ctx.client.activeAlerts(system, systemSignal);
      for (const alert of alerts) counts.add([alert.severity || UNKNOWN_LABEL, alert.class ?? '']);
      return counts.samples('dataprotect_storage_alerts', { target: ctx.target.name, system_id: system.id }, ['severity', 'class']);
    });
  },
});
