/**
 * The management service's habits on real equipment, which the simulator
 * shows by default: copies in a deletion state listed beside the live ones,
 * latest-copies refusing paging parameters (strict REST validation), cloud
 * DR sessions paged as {content, pageInfo} and refused (403) to an account
 * with the User role. Every count equals the simulator's truth.
 */
import pino from 'pino';
import { assetsCollector } from '../../../src/collectors/management/assets';
import { cloudDrSessionsCollector } from '../../../src/collectors/management/cloud-dr-sessions';
import { copiesCollector } from '../../../src/collectors/management/copies';
import { latestCopiesCollector } from '../../../src/collectors/management/latest-copies';
import { LATEST_COPY_TIMES, type LatestCopyTimes } from '../../../src/collectors/management/published';
import { PermissionDenied } from '../../../src/collectors/types';
import { DEFAULT_USER_ROLE_USERNAME, startSimulator, type RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { copyTruthByLocation, managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 300, protectionPolicies: 6, activitiesPerDay: 20, auditEntries: 20 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

/** Log lines at warn or above, captured from a pino logger. */
function capturingLogger(): { logger: pino.Logger; warnings: Array<{ msg: string; role?: string }> } {
  const warnings: Array<{ msg: string; role?: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  return { logger, warnings };
}

describe('management service habits of real equipment', () => {
  it('copies: copies in a deletion state are listed but neither counted nor sized', async () => {
    const estate = sim.estate.management;
    const withDeleted = estate.assets().filter((a) => !a.deleted && estate.deletedCopies(a.id).length > 0);
    expect(withDeleted.length).toBeGreaterThan(10);
    // the service lists them when asked without the state term
    const listed = await h.client.fetchJson({ endpoint: 'copies', path: `/api/v2/assets/${(withDeleted[0] as { id: string }).id}/copies?pageSize=100` });
    const states = (listed.body as { content: Array<{ state: string | null }> }).content.map((c) => c.state).filter((s) => s !== null);
    expect(states.sort()).toEqual(['CATALOG_DELETE_FAILED', 'DELETED', 'DELETE_FAILED', 'DELETING', 'SOFT_DELETED']);

    const result = await run(copiesCollector, sim, h, { settings: { perAssetSeries: 'all' } });
    for (const asset of withDeleted) {
      // copies past their retention time (awaiting the daily expiry run) are not counted either
      const truth = new Map([...copyTruthByLocation(estate.copies(asset.id), sim.clock.now().getTime())].map(([location, [count, bytes]]) => [location, { count, bytes }]));
      const counted = new Map<string, { count: number; bytes: number }>();
      for (const sample of samplesNamed(result, 'dataprotect_asset_copies').filter((s) => s.labels.asset_id === asset.id)) {
        const bytes = samplesNamed(result, 'dataprotect_asset_copies_size_bytes').find((s) => s.labels.asset_id === asset.id && s.labels.location === sample.labels.location);
        counted.set(sample.labels.location as string, { count: sample.value, bytes: bytes?.value ?? -1 });
      }
      expect([asset.id, counted]).toEqual([asset.id, truth]);
    }
  });

  it('latest-copies: only the filter is sent, and the newest live copy wins over a newer deleted one', async () => {
    const estate = sim.estate.management;
    const shared = new Map<string, unknown>();
    await run(latestCopiesCollector, sim, h, { shared });
    const newest = (shared.get(LATEST_COPY_TIMES.id) as LatestCopyTimes).newest;
    const live = estate.assets().filter((a) => !a.deleted);
    expect(newest.size).toBe(live.length);
    let newerDeleted = 0;
    for (const asset of live) {
      const truth = estate.latestCopy(asset.id);
      expect([asset.id, newest.get(asset.id)]).toEqual([asset.id, truth ? Date.parse(truth.createTime) : null]);
      if (truth && estate.deletedCopies(asset.id).some((c) => Date.parse(c.createTime) > Date.parse(truth.createTime))) newerDeleted += 1;
    }
    expect(newerDeleted).toBeGreaterThan(0);
    expect(h.requests.filter((r) => r.endpoint === '/api/v2/latest-copies').map((r) => r.code)).not.toContain('400');
  });

  it('assets: the products\' asset types pass through; the policy name comes from the top-level protectionPolicy', async () => {
    const estate = sim.estate.management;
    const policy = estate.policies().find((p) => p.type === 'ACTIVE') as { id: string; name: string };
    const vm = estate.addAsset({ type: 'VMWARE_VIRTUAL_MACHINE', name: 'vm-product-01', policyId: policy.id });
    // without expand the products send the policy only at the top level: no name but there
    estate.dropEmbeddedPolicy(vm.id);
    const result = await run(assetsCollector, sim, h, { settings: { perAssetSeries: 'all' } });
    const info = samplesNamed(result, 'dataprotect_asset_info').find((s) => s.labels.asset_id === vm.id);
    expect(info?.labels).toMatchObject({ asset_type: 'VMWARE_VIRTUAL_MACHINE', policy: policy.name, protection_status: 'PROTECTED' });
    expect(samplesNamed(result, 'dataprotect_assets').find((s) => s.labels.asset_type === 'VMWARE_VIRTUAL_MACHINE')?.value).toBe(1);
  });

  it('assets: an estate named as the products name it counts the same assets under VMWARE_VIRTUAL_MACHINE', async () => {
    const product = await startSimulator({ seed: 11, size: { assets: 300, protectionPolicies: 6, activitiesPerDay: 20, auditEntries: 20, replicatedVms: 1, storageSystems: 1 }, startTime: sim.clock.now(), managementTypeNames: 'product' });
    const ph = managementHarness(product);
    try {
      const result = await run(assetsCollector, product, ph);
      const counted = new Map<string, number>();
      for (const s of samplesNamed(result, 'dataprotect_assets')) counted.set(s.labels.asset_type as string, (counted.get(s.labels.asset_type as string) ?? 0) + s.value);
      const truth = new Map<string, number>();
      for (const a of product.estate.management.assets().filter((x) => !x.deleted)) truth.set(a.type, (truth.get(a.type) ?? 0) + 1);
      expect(counted).toEqual(truth);
      expect(counted.get('VMWARE_VIRTUAL_MACHINE')).toBeGreaterThan(50);
      expect(counted.has('HV_VIRTUAL_MACHINE')).toBe(false);
    } finally {
      await ph.client.close();
      await product.close();
    }
  });

  it('cloud-dr-sessions: every page of {content, pageInfo} is read', async () => {
    const small = managementHarness(sim, { pageSize: 1 });
    try {
      const truth = sim.estate.management.cloudDrSessions();
      expect(truth.length).toBeGreaterThan(1);
      const result = await run(cloudDrSessionsCollector, sim, small);
      const counted = new Map(samplesNamed(result, 'dataprotect_cloud_dr_sessions').map((s) => [`${s.labels.dr_type}/${s.labels.status}`, s.value]));
      const expected = new Map<string, number>();
      // drType and status are optional in the model: a session without one counts under "unknown"
      for (const s of truth) {
        const key = `${s.drType ?? 'unknown'}/${s.status ?? 'unknown'}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
      expect(counted).toEqual(expected);
      expect(small.requests.filter((r) => r.endpoint === '/api/v2/cloud-dr-sessions')).toHaveLength(truth.length);
    } finally {
      await small.client.close();
    }
  });

  it('cloud-dr-sessions: a User-role account fails the run with one log line naming the role, at most hourly', async () => {
    const monitor = managementHarness(sim, { username: DEFAULT_USER_ROLE_USERNAME });
    const { logger, warnings } = capturingLogger();
    try {
      const attempt = async (): Promise<unknown> => run(cloudDrSessionsCollector, sim, monitor, { logger }).then(() => undefined, (error: unknown) => error);
      const first = await attempt();
      expect(first).toBeInstanceOf(PermissionDenied);
      expect((first as Error).message).toMatch(/needs the Administrator or Restore Administrator role/);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.role).toBe('Administrator or Restore Administrator');

      sim.clock.advance(30 * 60_000);
      expect(await attempt()).toBeInstanceOf(PermissionDenied);
      expect(warnings).toHaveLength(1); // within the hour: not repeated

      sim.clock.advance(31 * 60_000);
      expect(await attempt()).toBeInstanceOf(PermissionDenied);
      expect(warnings).toHaveLength(2);
      expect(JSON.stringify(warnings)).not.toContain(sim.password);
    } finally {
      await monitor.client.close();
    }
  });
});
