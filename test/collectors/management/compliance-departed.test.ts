/**
 * compliance-details is the verification history, not current state (api-notes): the runs of an asset that was deleted, or moved
 * to another policy, stay listed. Its last run under the policy it left is not that policy's compliance now: counting it would keep
 * a FAILED of a policy nobody can fix (the asset is gone) and count a moved asset in two policies.
 */
import { ManagementClient } from '../../../src/clients/management/client';
import { complianceCollector } from '../../../src/collectors/management/compliance';
import { ASSET_LIST, type AssetList, type AssetRecord } from '../../../src/collectors/management/published';
import { parseConfig, type TargetConfig } from '../../../src/config/load';
import { runCollector, samplesNamed, silentLogger } from '../../support/collect';
import { scripted } from '../../support/scripted-server';

const NOW = new Date('2026-11-18T10:00:00Z');

function asset(id: string, policyId: string | null, policyName: string): AssetRecord {
  return {
    id, name: id, type: 'VMWARE_VIRTUAL_MACHINE', protectionStatus: policyId ? 'PROTECTED' : 'UNPROTECTED', protected: policyId !== null,
    policyId, policyName, lastAvailableCopyTime: null, updatedAt: null, size: null, newestCopyTime: null,
  };
}

function run(assetId: string, policy: [id: string, name: string], stageId: string, status: string, completionTime: string) {
  const [protectionPolicyId, policyName] = policy;
  return { assetId, assetName: assetId, protectionPolicyId, policyName, stageId, status, startTime: completionTime, completionTime, createdAt: completionTime };
}

it('counts neither the runs of a deleted asset nor those of an asset under a policy it has left', async () => {
  const gold: [string, string] = ['p-gold', 'Gold'];
  const silver: [string, string] = ['p-silver', 'Silver'];
  const history = [
    // vm-moved was in Gold (its last run there failed), and is now in Silver, where it succeeds
    run('vm-moved', gold, 's-gold', 'FAILED', '2026-11-10T08:04:00Z'),
    run('vm-moved', silver, 's-silver', 'SUCCEEDED', '2026-11-18T09:04:00Z'),
    // vm-deleted failed in Gold before it was deleted
    run('vm-deleted', gold, 's-gold', 'FAILED', '2026-11-12T08:04:00Z'),
    run('vm-stays', gold, 's-gold', 'SUCCEEDED', '2026-11-18T09:04:00Z'),
  ];
  const server = await scripted((method, path) => {
    if (method === 'POST' && path === '/api/v2/login') return { status: 200, body: { access_token: 'tok', expires_in: 3600 } };
    if (method === 'POST' && path === '/api/v2/logout') return { status: 204 };
    if (path === '/api/v2/compliance-details') {
      return { status: 200, body: { content: history, page: { number: 1, size: 100, totalPages: 1, totalElements: history.length } } };
    }
    return { status: 404, body: { code: 404, reason: 'not found' } };
  });
  const target = parseConfig({
    targets: [{ name: 'pp', kind: 'management', url: server.url, username: 'u', password: 'p', maxAttempts: 1 }],
  }).targets[0] as TargetConfig & { kind: 'management' };
  const client = new ManagementClient(target, { logger: silentLogger });
  const assets: AssetList = {
    readAt: NOW.getTime(),
    assets: new Map([asset('vm-moved', 'p-silver', 'Silver'), asset('vm-stays', 'p-gold', 'Gold')].map((a) => [a.id, a])),
  };
  try {
    const result = await runCollector(complianceCollector, { target, client, now: () => NOW, shared: new Map([[ASSET_LIST.id, assets]]) });
    const counted = new Map(samplesNamed(result, 'dataprotect_compliance_objectives').filter((s) => s.value > 0).map((s) => [`${s.labels.policy}/${s.labels.status}`, s.value]));
    expect(counted).toEqual(new Map([['Gold/SUCCEEDED', 1], ['Silver/SUCCEEDED', 1]]));
  } finally {
    await client.close();
    await server.close();
  }
});
