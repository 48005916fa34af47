import { defineCollector } from '../types';
import { explainForbidden } from '../shared/permission';
import { uniqueBy } from '../shared/unique';
import { Tally, UNKNOWN_LABEL } from '../shared/tally';

const CLOUD_DR_ROLE = 'Administrator or Restore Administrator';

/** Cloud DR sessions by type and status. Only the Administrator and Restore Administrator roles may list them: User gets 403. */
export const cloudDrSessionsCollector = defineCollector<'management'>({
  name: 'cloud-dr-sessions',
  kind: 'management',
  description: 'Cloud DR sessions by type and status',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_cloud_dr_sessions'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    let listed;
    try {
      listed = await ctx.client.cloudDrSessions(signal);
    } catch (error) {
      const nowMs = ctx.now().getTime();
      throw explainForbidden(error, { target, collector: 'cloud-dr-sessions', role: CLOUD_DR_ROLE, logger: ctx.logger, nowMs });
    }
    const { unique: sessions } = uniqueBy(listed, (session) => session.id);
    const tally = new Tally<[string, string]>();
    for (const session of sessions) tally.add([session.drType || UNKNOWN_LABEL, session.status || UNKNOWN_LABEL]);
    return { samples: tally.samples('dataprotect_cloud_dr_sessions', { target }, ['dr_type', 'status']), items: sessions.length };
  },
});
