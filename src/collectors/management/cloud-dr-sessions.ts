/**
 * cloud-dr-sessions: cloud disaster-recovery sessions by DR type (Test,
 * Failover) and status (READY; other statuses pass through as they come).
 */
import { defineCollector, type Sample } from '../types';
import { Tally } from './shared';

export const cloudDrSessionsCollector = defineCollector<'management'>({
  name: 'cloud-dr-sessions',
  kind: 'management',
  description: 'Cloud DR sessions by type and status',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_cloud_dr_sessions'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const sessions = await ctx.client.cloudDrSessions(signal);
    const seen = new Set<string>();
    const tally = new Tally<[string, string]>();
    for (const session of sessions) {
      if (seen.has(session.id)) continue;
      seen.add(session.id);
      tally.add([session.drType, session.status]);
    }
    const samples: Sample[] = tally.entries().map(({ key: [drType, status], value }) => ({
      name: 'dataprotect_cloud_dr_sessions',
      labels: { target, dr_type: drType, status },
      value,
    }));
    return { samples, items: seen.size };
  },
});
