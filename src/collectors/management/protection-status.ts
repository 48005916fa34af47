import type { Asset } from '../../clients/management/schemas';

/**
 * The protection status label and whether RPO applies. The service's
 * protectionStatus is used as sent (unknown values pass through, and only
 * PROTECTED counts as protected). The seed's asset has no such field; when it
 * is absent the status is derived from the policy: none assigned ->
 * UNPROTECTED, a policy of type EXCLUDED -> EXCLUDED, any other policy ->
 * PROTECTED.
 */
export function protectionOf(asset: Asset, policyType: string | null | undefined): { status: string; protected: boolean } {
  if (asset.protectionStatus) return { status: asset.protectionStatus, protected: asset.protectionStatus === 'PROTECTED' };
  const policyId = asset.protectionPolicyId ?? asset.protectionPolicy?.id ?? asset._embedded?.protectionPolicy?.id;
  if (!policyId) return { status: 'UNPROTECTED', protected: false };
  if (policyType === 'EXCLUDED') return { status: 'EXCLUDED', protected: false };
  return { status: 'PROTECTED', protected: true };
}
