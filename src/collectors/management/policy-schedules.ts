/**
 * Each policy's PROTECTION schedule, published by the protection-policies
 * collector for the assets collector's RPO series.
 */
import { collectAll } from '../../clients/management/paging';
import { uniqueBy } from '../shared/unique';
import { sharedKey, type CollectorContext } from '../types';
import { readProtectionSchedule, type ProtectionSchedule } from './policy-rpo';

/** Each policy's PROTECTION schedule by policy id, as read at `readAt` (exporter clock, epoch ms). */
export interface PolicySchedules {
  readonly readAt: number;
  readonly byId: ReadonlyMap<string, ProtectionSchedule>;
}

export const POLICY_SCHEDULES = sharedKey<PolicySchedules>('management.policySchedules');

/**
 * The policy schedules the protection-policies collector published, or a
 * fresh read of the policies before its first success (the assets collector
 * runs first) and once the published ones are older than staleAfter.
 */
export async function currentPolicySchedules<S>(ctx: CollectorContext<'management', S>, signal: AbortSignal): Promise<PolicySchedules> {
  const published = ctx.shared.get(POLICY_SCHEDULES);
  if (published && ctx.now().getTime() - published.readAt <= ctx.settings.staleAfter) return published;
  const { unique: policies } = uniqueBy(await collectAll(ctx.client.protectionPolicies({}, signal)), (policy) => policy.id);
  const byId = new Map<string, ProtectionSchedule>(policies.map((policy) => [policy.id, readProtectionSchedule(policy.stages)]));
  return { readAt: ctx.now().getTime(), byId };
}
