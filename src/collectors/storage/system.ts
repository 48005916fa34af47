import { defineCollector, type Sample } from '../types';

/** One info series per collected system: the appliance, or each system a management center lists. */
export const systemCollector = defineCollector({
  name: 'system',
  kind: 'storage',
  description: 'The storage systems collected: the appliance, or the systems of a management center.',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_storage_system_info'],
  async collect(ctx, signal) {
    const { systems } = await ctx.client.discover(signal);
    const samples: Sample[] = systems.map((system) => ({
      name: 'dataprotect_storage_system_info',
      labels: {
        target: ctx.target.name,
        system_id: system.id,
        system_name: system.name,
        model: system.model ?? '',
        version: system.version ?? '',
      },
      value: 1,
    }));
    return { samples, items: systems.length };
  },
});
