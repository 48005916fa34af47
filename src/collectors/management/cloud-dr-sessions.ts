/**
 * cloud-dr-sessions: cloud disaster-recovery sessions by DR type (Test,
 * Failover) and status (READY; other statuses pass through as they come).
 */
import { defineCollector, type Sample } from '../types';
import { uniqueBy } from '../shared/unique';
import { Tally } from './shared';

export const cloudDrSessionsCollector = defineCollector<'management'>({
  name: 'cloud-dr-sessions',
  kind: 'management',
  description: 'Cloud DR sessions by type and status',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_cloud_dr_sessions'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const { unique: sessions } = uniqueBy(await ctx.client.cloudDrSessions(signal), (session) => session.id);
    const tally = new Tally<[string, string]>();
    for (const session of sessions) tally.add([session.drType, session.status]);
    const samples: Sample[] = tally.entries().map(({ key: [drType, status], value }) => ({
      name: 'dataprotect_cloud_dr_sessions',
      labels: { target, dr_type: drType, status },
      value,
    }));
    return { samples, items: sessions.length };
  },
});
