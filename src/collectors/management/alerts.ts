import { defineCollector } from '../types';
import { collectAll } from '../../clients/management/paging';
import { Tally, UNKNOWN_LABEL } from '../shared/tally';
import { uniqueBy } from '../shared/unique';

/** severities of api-notes: their series stay at 0 when no alert is open, so "all clear" reads 0 rather than "no data" */
const KNOWN_SEVERITIES = ['CRITICAL', 'WARNING', 'INFORMATIONAL'] as const;

/** Alerts by severity and acknowledgement (another acknowledgeState passes through); all listed are open: the API has no closed state. */
export const alertsCollector = defineCollector<'management'>({
  name: 'alerts',
  kind: 'management',
  description: "The service's open alerts by severity and acknowledgement",
  defaultSchedule: '*/2 * * * *',
  metrics: ['dataprotect_alerts'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    // an alert listed twice (the list changing while it is read) counts once
    const { unique: alerts } = uniqueBy(await collectAll(ctx.client.alerts({}, signal)), (alert) => alert.id);
    const tally = new Tally<[string, string]>();
    for (const severity of KNOWN_SEVERITIES) for (const ack of ['false', 'true']) tally.add([severity, ack], 0);
    for (const alert of alerts) tally.add([alert.severity || UNKNOWN_LABEL, acknowledged(alert.acknowledgement?.acknowledgeState)]);
    return { samples: tally.samples('dataprotect_alerts', { target }, ['severity', 'acknowledged']), items: alerts.length };
  },
});

function acknowledged(state: string | null | undefined): string {
  if (state === 'ACKNOWLEDGED') return 'true';
  if (state === 'UNACKNOWLEDGED' || state == null || state === '') return 'false';
  return state;
}
