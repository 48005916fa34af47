import { ENDPOINTS } from '../../clients/management/endpoints';
import { countSkippedItem } from '../../clients/run-requests';
import type { ComplianceDetail } from '../../clients/management/schemas';
import { defineCollector } from '../types';
import { Tally } from '../shared/tally';
import { compositeKey } from '../../util/composite-key';
import { currentAssets, type AssetRecord } from './published';

/** each gets a series per policy, 0 included, so a fixed failure reads 0 rather than "no data" */
const KNOWN_STATUSES = ['SUCCEEDED', 'FAILED', 'SKIPPED'] as const;

/**
 * Compliance results by policy and verified-objective status (unknown statuses pass through). The listing is history, one record
 * per verification run: only the latest run of each asset and stage counts, by completionTime (else createdAt), whatever the
 * listing order; records naming no asset count each on their own. The status is verifiedObjectives.status (an array counts each
 * objective), else a flat `status` (api-notes). A record with neither is skipped and counted: a made-up status would be a wrong
 * number, and one such record must not cost the listing (its asset's latest readable run counts). History also holds the runs of
 * assets since deleted or moved to another policy: those are no policy's compliance now, and are left out (by the asset list).
 */
export const complianceCollector = defineCollector<'management'>({
  name: 'compliance',
  kind: 'management',
  description: 'Latest compliance result per asset and stage, by policy and verified objective status',
  defaultSchedule: '*/15 * * * *',
  metrics: ['dataprotect_compliance_objectives'],
  // reads the asset list the assets collector publishes (else it would read the list itself)
  after: ['assets'],
  async collect(ctx, signal) {
    const { assets } = await currentAssets(ctx, signal);
    const tally = new Tally<[string, string]>();
    const latest = new Map<string, { detail: ComplianceDetail; statuses: string[] }>();
    let items = 0;
    for await (const page of ctx.client.complianceDetails({}, signal)) {
      for (const detail of page) {
        const index = items++;
        if (!isCurrent(detail, assets)) continue;
        const statuses = statusesOf(detail, index);
        if (!statuses) continue;
        const key = detail.assetId ? compositeKey([detail.assetId, detail.stageId ?? detail.protectionPolicyId ?? '']) : `#${index}`;
        const known = latest.get(key);
        if (!known || !isOlder(detail, known.detail)) latest.set(key, { detail, statuses });
      }
    }
    for (const { detail, statuses } of latest.values()) {
      const policy = detail.policyName ?? detail.protectionPolicyId ?? '';
      for (const status of KNOWN_STATUSES) tally.add([policy, status], 0);
      for (const status of statuses) tally.add([policy, status]);
    }
    return { samples: tally.samples('dataprotect_compliance_objectives', { target: ctx.target.name }, ['policy', 'status']), items };
  },
});

/**
 * Whether the run is of an asset still listed, in the run's policy. A run naming no asset or no policy cannot be told, and counts; so
 * does one of a protected asset whose policy the asset list does not name.
 */
function isCurrent(detail: ComplianceDetail, assets: ReadonlyMap<string, AssetRecord>): boolean {
  if (!detail.assetId) return true;
  const asset = assets.get(detail.assetId);
  if (asset === undefined) return false;
  if (!detail.protectionPolicyId) return true;
  return asset.policyId ? asset.policyId === detail.protectionPolicyId : asset.protected;
}

/** Whether `candidate` ran before `known` (then the known one stays); without both times, the later listed wins. */
function isOlder(candidate: ComplianceDetail, known: ComplianceDetail): boolean {
  const [candidateTime, knownTime] = [candidate.completionTime ?? candidate.createdAt, known.completionTime ?? known.createdAt];
  return knownTime != null && (candidateTime == null || candidateTime < knownTime);
}

/** The record's statuses; undefined (the record skipped and counted) when it has none. */
function statusesOf(detail: ComplianceDetail, index: number): string[] | undefined {
  const objectives = detail.verifiedObjectives;
  if (Array.isArray(objectives)) {
    const statuses = objectives.map((objective) => objective.status).filter((s): s is string => typeof s === 'string' && s !== '');
    if (statuses.length === objectives.length && statuses.length > 0) return statuses;
  } else if (objectives?.status) {
    return [objectives.status];
  }
  if (detail.status) return [detail.status];
  const problem = `item ${index}: no verifiedObjectives.status or status`;
  countSkippedItem({ endpoint: ENDPOINTS.complianceDetails, id: detail.assetId?.slice(0, 64), problem, reason: 'missing_field' });
  return undefined;
}
