/**
 * A new asset's record: what its creator decides (the initial estate in generate.ts, a test's addAsset in model.ts), and the rest
 * as the service shows every asset it has just discovered: no tags, no rule, no copy yet.
 */
import type { AssetRecord, PolicyRecord } from './records';
import type { Asset, ProtectionStatus } from './shapes';

export interface NewAsset {
  id: string;
  name: string;
  type: string;
  status: ProtectionStatus;
  /** the policy that covers it: an active one when PROTECTED, the EXCLUDED one when EXCLUDED */
  policy: PolicyRecord | null;
  protectionEngine: string;
  createdMs: number;
  deleted: boolean;
  sizeBytes: number;
  credentialId: string | null;
  protectionLifeCycleId: string | null;
  details: Asset['details'];
}

export function newAssetRecord(asset: NewAsset, ordinal: number, schedule: { phaseMs: number; nextBackupMs: number }): AssetRecord {
  const { policy, status, createdMs } = asset;
  const policyRef = policy ? { id: policy.api.id, name: policy.api.name, type: policy.api.type } : null;
  const api: Asset = {
    id: asset.id,
    name: asset.name,
    type: asset.type,
    userTags: null,
    dataTargetIds: null,
    assetGroupId: null,
    credentialId: asset.credentialId,
    ruleId: null,
    ruleName: null,
    protectionLifeCycleId: asset.protectionLifeCycleId,
    protectionPolicyId: policy?.api.id ?? null,
    protectionStatus: status,
    deleted: asset.deleted,
    protectable: true,
    size: asset.sizeBytes,
    lastAvailableCopyTime: null,
    createdAt: new Date(createdMs).toISOString(),
    updatedAt: new Date(createdMs).toISOString(),
    details: asset.details,
    protectionPolicy: policyRef,
    _embedded: { protectionPolicy: policyRef ? { ...policyRef, protectionEngine: asset.protectionEngine } : null },
  };
  return {
    api,
    ordinal,
    createdMs,
    lastCopyMs: null,
    pinned: false,
    policy: status === 'PROTECTED' ? policy : null,
    copies: [],
    minRetentionMs: Infinity,
    ...schedule,
  };
}
