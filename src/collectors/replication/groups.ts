import { defineCollector, type Sample } from '../types';
import { uniqueBy } from '../shared/unique';

/** Consistency groups. Only the name is a label: ids would not help a reader of a dashboard. */
export const groupsCollector = defineCollector({
  name: 'groups',
  kind: 'replication',
  description: 'Consistency groups of the replication plugin.',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_replication_group_info'],
  async collect(ctx, signal) {
    const groups = await ctx.client.groups({ fields: ['name'] }, signal);
    const { unique, duplicates } = uniqueBy(groups, (group) => group.name);
    if (duplicates.length > 0) ctx.logger.warn({ duplicates }, 'consistency groups with the same name: one series each');
    const samples: Sample[] = unique.map((group) => ({
      name: 'dataprotect_replication_group_info',
      labels: { target: ctx.target.name, group: group.name },
      value: 1,
    }));
    return { samples, items: groups.length };
  },
});
