/**
 * protection-policies, compliance, inventory-sources, cloud-dr-sessions and
 * alerts collectors: values equal the simulator's truth; unknown values pass
 * through as label values.
 */
import { alertsCollector } from '../../../src/collectors/management/alerts';
import { assetsCollector } from '../../../src/collectors/management/assets';
import { cloudDrSessionsCollector } from '../../../src/collectors/management/cloud-dr-sessions';
import { complianceCollector } from '../../../src/collectors/management/compliance';
import { inventorySourcesCollector } from '../../../src/collectors/management/inventory-sources';
import { protectionPoliciesCollector } from '../../../src/collectors/management/protection-policies';
import { POLICIES, type Policies } from '../../../src/collectors/management/published';
import type { CollectResult } from '../../../src/collectors/types';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 2500, protectionPolicies: 8, activitiesPerDay: 50, auditEntries: 50 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

function map(result: CollectResult<unknown>, name: string, labels: string[]): Map<string, number> {
  return new Map(samplesNamed(result, name).map((s) => [labels.map((l) => s.labels[l]).join('/'), s.value]));
}

function tally<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
}

describe('other management collectors', () => {
  it('protection-policies: one info series per policy; assets per policy from the asset list or, before it, the summary', async () => {
    const policies = sim.estate.management.policies();
    const shared = new Map<string, unknown>();
    const early = await run(protectionPoliciesCollector, sim, h, { shared });
    expect(map(early, 'dataprotect_policy_info', ['policy_id', 'policy', 'policy_type', 'enabled'])).toEqual(
      new Map(policies.map((p) => [`${p.id}/${p.name}/${p.type}/${p.enabled}`, 1])),
    );
    const fromSummary = new Map<string, number>();
    for (const p of policies) fromSummary.set(p.name, (fromSummary.get(p.name) ?? 0) + p.summary.numberOfAssets);
    expect(map(early, 'dataprotect_policy_assets', ['policy'])).toEqual(fromSummary);
    expect((shared.get(POLICIES.id) as Policies).byId.size).toBe(policies.length);

    await run(assetsCollector, sim, h, { shared });
    const late = await run(protectionPoliciesCollector, sim, h, { shared });
    const live = sim.estate.management.assets().filter((a) => !a.deleted && a._embedded.protectionPolicy);
    const fromAssets = tally(live, (a) => a._embedded.protectionPolicy?.name as string);
    for (const p of policies) if (!fromAssets.has(p.name)) fromAssets.set(p.name, 0);
    expect(map(late, 'dataprotect_policy_assets', ['policy'])).toEqual(fromAssets);
    expect(fromAssets).toEqual(fromSummary); // the two sources agree on the simulator
  });

  it('compliance: the latest result per asset and stage, by policy and status, out of every verification run listed', async () => {
    const result = await run(complianceCollector, sim, h);
    const truth = sim.estate.management.compliance();
    expect(truth.length).toBeGreaterThan(1000);
    // the listing is history: the earlier runs were read and left out
    expect(result.items).toBe(sim.estate.management.complianceHistory().length);
    expect(result.items).toBeGreaterThan(truth.length);
    const expected = tally(truth, (c) => `${c.policyName}/${c.status}`);
    // every known status of every policy has a series, 0 included
    for (const policy of new Set(truth.map((c) => c.policyName))) {
      for (const status of ['SUCCEEDED', 'FAILED', 'SKIPPED']) if (!expected.has(`${policy}/${status}`)) expected.set(`${policy}/${status}`, 0);
    }
    expect(map(result, 'dataprotect_compliance_objectives', ['policy', 'status'])).toEqual(expected);
    expect([...expected.values()]).toContain(0);
    expect(new Set(samplesNamed(result, 'dataprotect_compliance_objectives').map((s) => s.labels.status)).size).toBeGreaterThan(1);
  });

  it('inventory-sources: discovery success and time per source, following a failed discovery', async () => {
    const expected = (): [Map<string, number>, Map<string, number>] => {
      const sources = sim.estate.management.inventorySources();
      return [
        // a source without a discovery result (another type) is not reported as failed: no series
        new Map(sources.filter((s) => s.lastDiscoveryResult !== null).map((s) => [s.name, s.lastDiscoveryResult?.status === 'OK' ? 1 : 0])),
        new Map(sources.map((s) => [s.name, Date.parse(s.lastDiscovered) / 1000])),
      ];
    };
    let result = await run(inventorySourcesCollector, sim, h);
    expect(sim.estate.management.inventorySources().filter((s) => s.lastDiscoveryResult === null).map((s) => s.type).sort()).toEqual(['APP_HOST', 'ASSET_GROUP', 'DDSYSTEM']);
    expect([
      map(result, 'dataprotect_inventory_source_discovery_success', ['source']),
      map(result, 'dataprotect_inventory_source_last_discovery_timestamp_seconds', ['source']),
    ]).toEqual(expected());
    const source = sim.estate.management.inventorySources()[0] as { id: string; name: string };
    sim.estate.management.setInventorySourceDiscovery(source.id, { status: 'FAILED', at: sim.clock.now() });
    result = await run(inventorySourcesCollector, sim, h);
    expect(map(result, 'dataprotect_inventory_source_discovery_success', ['source']).get(source.name)).toBe(0);
    expect([
      map(result, 'dataprotect_inventory_source_discovery_success', ['source']),
      map(result, 'dataprotect_inventory_source_last_discovery_timestamp_seconds', ['source']),
    ]).toEqual(expected());
  });

  it('cloud-dr-sessions: sessions by DR type and status, following a removed session', async () => {
    const expected = (): Map<string, number> => tally(sim.estate.management.cloudDrSessions(), (s) => `${s.drType ?? 'unknown'}/${s.status ?? 'unknown'}`);
    let result = await run(cloudDrSessionsCollector, sim, h);
    expect(expected().size).toBeGreaterThan(0);
    // one session gives no drType, another no status (optional in the model): both count, the others unharmed
    expect([...expected().keys()].filter((key) => key.includes('unknown'))).toHaveLength(2);
    expect(map(result, 'dataprotect_cloud_dr_sessions', ['dr_type', 'status'])).toEqual(expected());
    sim.estate.management.removeCloudDrSession((sim.estate.management.cloudDrSessions()[0] as { id: string }).id);
    result = await run(cloudDrSessionsCollector, sim, h);
    expect(map(result, 'dataprotect_cloud_dr_sessions', ['dr_type', 'status'])).toEqual(expected());
  });

  it('alerts: open alerts by severity and acknowledgement, following changes', async () => {
    const added = sim.estate.management.addAlert({ severity: 'CRITICAL', acknowledgement: { acknowledgeState: 'UNACKNOWLEDGED' } });
    let result = await run(alertsCollector, sim, h);
    const expected = (): Map<string, number> =>
      tally(sim.estate.management.alerts(), (a) => `${a.severity ?? 'unknown'}/${a.acknowledgement.acknowledgeState === 'ACKNOWLEDGED' ? 'true' : 'false'}`);
    expect(map(result, 'dataprotect_alerts', ['severity', 'acknowledged'])).toEqual(expected());
    // the newest alert gives no severity (only id is required by the model): it counts, under "unknown"
    expect([...expected().keys()].some((key) => key.startsWith('unknown/'))).toBe(true);
    sim.estate.management.acknowledgeAlert(added.id);
    result = await run(alertsCollector, sim, h);
    expect(map(result, 'dataprotect_alerts', ['severity', 'acknowledged'])).toEqual(expected());
    expect(sim.stats.count('management', '/api/v2/alerts')).toBeGreaterThanOrEqual(2);
    // all clear: every severity reads 0 instead of disappearing
    for (const alert of sim.estate.management.alerts()) sim.estate.management.removeAlert(alert.id);
    result = await run(alertsCollector, sim, h);
    expect(map(result, 'dataprotect_alerts', ['severity', 'acknowledged'])).toEqual(
      new Map(['CRITICAL', 'WARNING', 'INFORMATIONAL'].flatMap((severity) => [[`${severity}/false`, 0], [`${severity}/true`, 0]] as Array<[string, number]>)),
    );
  });
});
