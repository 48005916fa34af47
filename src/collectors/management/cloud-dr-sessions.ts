import { isStatusError } from '../../clients/errors';
import { defineCollector, PermissionDenied } from '../types';
import { uniqueBy } from '../shared/unique';
import { Tally, UNKNOWN_LABEL } from '../shared/tally';

const ROLE = 'Administrator or Restore Administrator';
const REPEAT_AFTER_MS = 60 * 60_000;

/** When each target last logged the missing role (epoch ms). */
const lastLogged = new Map<string, number>();

/** Cloud DR sessions by type and status. Only the Administrator and Restore Administrator roles may list them: User gets 403. */
export const cloudDrSessionsCollector = defineCollector<'management'>({
  name: 'cloud-dr-sessions',
  kind: 'management',
  description: 'Cloud DR sessions by type and status',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_cloud_dr_sessions'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const listed = await ctx.client.cloudDrSessions(signal).catch((error: unknown) => {
      if (!isStatusError(error, 403)) throw error;
      // A 403 is the account's configuration, not an outage: every run gets the same answer until someone changes it, so the
      // line is repeated at most hourly per target, lest a run every few minutes bury the log.
      const message = `the account has no access to ${error.endpoint} (HTTP 403): the cloud-dr-sessions collector needs the ${ROLE} role`;
      const nowMs = ctx.now().getTime();
      const last = lastLogged.get(target);
      if (last === undefined || nowMs - last >= REPEAT_AFTER_MS || nowMs < last) {
        lastLogged.set(target, nowMs);
        ctx.logger.warn({ endpoint: error.endpoint, role: ROLE }, `${message}; repeated at most hourly while it lasts`);
      }
      throw new PermissionDenied(message);
    });
    // A session listed twice (the list shifting while paged) counts once; one without an id (the model requires none) counts too.
    const { unique } = uniqueBy(listed.filter((session) => session.id), (session) => session.id as string);
    const sessions = [...unique, ...listed.filter((session) => !session.id)];
    const tally = new Tally<[string, string]>();
    for (const session of sessions) tally.add([session.drType || UNKNOWN_LABEL, session.status || UNKNOWN_LABEL]);
    return { samples: tally.samples('dataprotect_cloud_dr_sessions', { target }, ['dr_type', 'status']), items: sessions.length };
  },
});
