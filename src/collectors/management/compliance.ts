/**
 * compliance: compliance results by policy and verified-objective status
 * (SUCCEEDED, FAILED, SKIPPED; unknown statuses pass through), from
 * GET /api/v2/compliance-details.
 *
 * The status is read from verifiedObjectives.status (the seed's field; an
 * array of objectives counts each one), else from a flat `status`
 * (api-notes). A result with neither fails the run: counting it under a
 * made-up status would be a wrong number.
 */
import { ApiError } from '../../clients/errors';
import { ENDPOINTS } from '../../clients/management/endpoints';
import type { ComplianceDetail } from '../../clients/management/schemas';
import { defineCollector, type Sample } from '../types';
import { Tally } from './shared';

/** verified-objective statuses of the seed: each gets a series per policy, 0 included, so a fixed failure reads 0 rather than "no data" */
const KNOWN_STATUSES = ['SUCCEEDED', 'FAILED', 'SKIPPED'] as const;

export const complianceCollector = defineCollector<'management'>({
  name: 'compliance',
  kind: 'management',
  description: 'Compliance results by policy and verified objective status',
  defaultSchedule: '*/15 * * * *',
  metrics: ['dataprotect_compliance_objectives'],
  async collect(ctx, signal) {
    const target = ctx.target.name;
    const tally = new Tally<[string, string]>();
    let pages = 0;
    let items = 0;
    for await (const page of ctx.client.complianceDetails({}, signal)) {
      pages += 1;
      for (const detail of page) {
        items += 1;
        const policy = detail.policyName ?? detail.protectionPolicyId ?? '';
        for (const status of KNOWN_STATUSES) tally.touch([policy, status]);
        for (const status of statusesOf(detail, items - 1)) tally.add([policy, status]);
      }
    }
    const samples: Sample[] = tally.entries().map(({ key: [policy, status], value }) => ({
      name: 'dataprotect_compliance_objectives',
      labels: { target, policy, status },
      value,
    }));
    return { samples, items, pages };
  },
});

function statusesOf(detail: ComplianceDetail, index: number): string[] {
  const objectives = detail.verifiedObjectives;
  if (Array.isArray(objectives)) {
    const statuses = objectives.map((objective) => objective.status).filter((s): s is string => typeof s === 'string' && s !== '');
    if (statuses.length === objectives.length && statuses.length > 0) return statuses;
  } else if (objectives?.status) {
    return [objectives.status];
  }
  if (detail.status) return [detail.status];
  throw new ApiError('protocol', ENDPOINTS.complianceDetails, `item ${index} (asset ${String(detail.assetId).slice(0, 64)}): no verifiedObjectives.status or status`);
}
