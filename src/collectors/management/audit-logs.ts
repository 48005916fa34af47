import type { AuditLog } from '../../clients/management/schemas';
import { defineCollector } from '../types';
import { EventCounts, type CountsState } from './ledger';

export type AuditLogsState = CountsState<[auditType: string]>;

/** Audit entries by auditType, read incrementally by changedTime (serial paging, counted by ledger.ts); types once seen stay, with 0. */
export const auditLogsCollector = defineCollector<'management', AuditLogsState>({
  name: 'audit-logs',
  kind: 'management',
  description: 'Audit log entries by type: counted since start and within the trailing window',
  defaultSchedule: '*/5 * * * *',
  metrics: ['dataprotect_audit_events_total', 'dataprotect_audit_events_window'],
  async collect(ctx, signal) {
    const counts = new EventCounts(ctx.state, ctx);
    const admitted: AuditLog[] | undefined = ctx.forwards?.auditEntries ? [] : undefined;
    // A first run's history before otlp.backfill's reach is not forwarded: not kept either (700,000 entries at 50,000 assets).
    const keptAfter = counts.first ? (ctx.forwards?.historyAfter ?? Infinity) : -Infinity;
    let items = 0;
    for await (const page of ctx.client.auditLogs({ filter: counts.range('changedTime') }, signal)) {
      items += page.length;
      for (const entry of page) {
        counts.observe(entry.changedTime);
        const taken = counts.take(entry.id, entry.changedTime, [entry.auditType]);
        // what counts is forwarded; history only within otlp.backfill's reach
        if (taken === 'counted' || (taken === 'history' && entry.changedTime > keptAfter)) admitted?.push(entry);
      }
    }
    const labels = { target: ctx.target.name };
    const samples = [
      ...counts.totals.samples('dataprotect_audit_events_total', labels, ['audit_type']),
      // a day of audit entries: 700,000 on a 50,000-asset estate
      ...counts.inWindow().samples('dataprotect_audit_events_window', labels, ['audit_type']),
    ];
    const state = counts.finish(ctx.logger, 'audit entries changed');
    return { samples, state, items, events: { auditEntries: admitted } };
  },
});
