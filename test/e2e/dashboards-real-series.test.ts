/**
 * The dashboards as an operator reads them, on a real Prometheus scraping the exporter against the
 * simulator, where what they show depends on more than one query's figures:
 *
 * 1. A table of several queries (SLA per policy) shows one row per policy, every column filled, as
 *    Grafana's merge transformation builds it (test/dashboards/grafana-table.ts).
 * 2. A count that reads 0 only says "none" while the series it counts are there: once a target's
 *    collectors fail for longer than collection.staleAfter, the exporter drops their series, and a
 *    stat of disconnected clusters, paused VMs or assets out of RPO must then show no value, not a
 *    green 0 while the cluster is still disconnected.
 * 3. The same for the exporter's own status counts once Prometheus cannot scrape the exporter.
 *
 * collection.staleAfter is 1 s here, so that a failing collector's series go at its first failed run.
 */
import { dashboardFiles, loadDashboard, panelsOf, queriesOf, substituteVariables, type DashboardQuery } from '../dashboards/dashboards';
import { mergedTable } from '../dashboards/grafana-table';
import { SCRAPE_JOB, startStack, TARGETS, type Stack } from './stack';

jest.setTimeout(90_000);

const DASHBOARDS = dashboardFiles().map((file) => loadDashboard(file).json);
const QUERIES: DashboardQuery[] = DASHBOARDS.flatMap(queriesOf);

function queryOf(id: string): DashboardQuery {
  const query = QUERIES.find((q) => `${q.dashboard} / ${q.panel} / ${q.refId}` === id);
  if (!query) throw new Error(`no query ${id}`);
  return query;
}

function panelOf(dashboard: string, title: string) {
  const found = DASHBOARDS.filter((d) => d.title === dashboard).flatMap(panelsOf).find((panel) => panel.title === title);
  if (!found) throw new Error(`no panel ${dashboard} / ${title}`);
  return found;
}

/** The stats that count problems, and what each counts. */
const PROBLEM_COUNTS = {
  management: ['DataProtect / Protection SLA / Assets out of RPO / A', 'DataProtect / Protection SLA / Protected assets without a copy / A'],
  activities: ['DataProtect / Protection SLA / Failed activities (trailing window) / A'],
  replication: ['DataProtect / Replication / Clusters disconnected / A', 'DataProtect / Replication / VMs paused / A'],
  exporter: [
    'DataProtect / Exporter health / Targets down / A',
    'DataProtect / Exporter health / Failing collectors / A',
    'DataProtect / Exporter health / Stale collectors / A',
  ],
} as const;

describe('dashboards on the exporter’s real series, beyond one query', () => {
  let stack: Stack | undefined;
  let disconnectedCluster = '';

  function running(): Stack {
    if (!stack) throw new Error('the stack did not start');
    return stack;
  }

  /** The panel's value as Grafana shows it at `time`: its samples' values (none: "No data"). */
  async function values(id: string, time?: Date): Promise<number[]> {
    return (await running().prometheus.query(substituteVariables(queryOf(id).expr), time)).map((sample) => Number(sample.value[1]));
  }

  async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    await running().prometheus.waitFor(async () => ((await probe()) ? true : undefined), timeoutMs, what);
  }

  beforeAll(async () => {
    stack = await startStack({
      seed: 11,
      size: { assets: 60, assetsWithoutCopyShare: 0, protectionPolicies: 9, replicatedVms: 16, replicationClusters: 2, storageSystems: 2 },
      collection: { defaultRpo: '36h', staleAfter: '1s' },
      schedule: '*/2 * * * * *',
      prepare: (sim) => {
        // A disconnected cluster, a paused VM and a protected asset without a copy: problems the stats count.
        const { replication, management } = sim.estate;
        const cluster = replication.clusters[0];
        const vm = replication.vms.find((v) => v.status === 'ACTIVE');
        if (!cluster || !vm) throw new Error('the simulator has no cluster or no active VM');
        replication.setClusterConnection(cluster.id, 'ERROR');
        replication.setVmStatus(vm.id, 'PAUSED');
        disconnectedCluster = cluster.name;
        const protectedAsset = management.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && a.protectionPolicyId);
        if (!protectedAsset?.protectionPolicyId) throw new Error('the simulator has no protected asset');
        management.addAsset({ name: 'never-copied', type: protectedAsset.type, policyId: protectedAsset.protectionPolicyId });
      },
    });
    const { exporter, prometheus } = stack;
    await prometheus.waitFor(
      async () => (exporter.runtime.firstRoundComplete() && (await prometheus.query(`up{job="${SCRAPE_JOB}"} == 1`)).length > 0 ? true : undefined),
      40_000,
      "the exporter's first collections, scraped",
    );
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('SLA per policy: one row per policy with all its columns, as Grafana merges the four queries', async () => {
    const panel = panelOf('DataProtect / Protection SLA', 'SLA per policy');
    expect(panel.transformations?.[0]?.id).toBe('merge');
    const policies = async () => (await running().prometheus.query('target_policy:dataprotect_assets_within_rpo:ratio_avg30d')).length;
    await until('the 30-day attainment of every policy', async () => (await policies()) > 0);
    const time = new Date();
    const results = await Promise.all(
      (panel.targets ?? []).map(async (target) => ({
        refId: target.refId ?? '',
        series: await running().prometheus.query(substituteVariables(target.expr ?? ''), time),
      })),
    );
    const rows = mergedTable(results);
    const columns = (panel.targets ?? []).map((target) => `Value #${target.refId}`);
    const keys = rows.map((row) => `${row.target}/${row.policy}`);
    expect(new Set(keys).size).toBe(await policies());
    expect(keys.length).toBe(new Set(keys).size);
    expect(rows.filter((row) => columns.some((column) => row[column] === undefined))).toEqual([]);
  });

  it('the problem counts read the estate while its series are served', async () => {
    await until('the disconnected cluster, the paused VM and the asset without a copy, counted', async () => {
      const counts = await Promise.all([...PROBLEM_COUNTS.management, ...PROBLEM_COUNTS.replication].map((id) => values(id)));
      return counts.every((value) => value.length === 1 && (value[0] ?? 0) >= 1);
    });
    expect(await values('DataProtect / Replication / Clusters disconnected / A')).toEqual([1]);
  });

  it('counts of problems show no value, not 0, once the series they count are dropped', async () => {
    const { sim, prometheus } = running();
    // Every request to the management service and the replication plugin fails from now on.
    sim.faults.add({ api: 'management', fault: { kind: 'status', status: 500 } });
    sim.faults.add({ api: 'replication', fault: { kind: 'status', status: 500 } });
    await until('the series of both targets dropped (staleAfter 1 s)', async () => {
      const left = await prometheus.query(
        `count(dataprotect_replication_cluster_connected) or count(dataprotect_asset_info) or count(dataprotect_activities_window) or count(target_asset:dataprotect_asset_within_rpo:bool)`,
      );
      return left.length === 0;
    });
    // The honest figures: both targets are down.
    expect(await values('DataProtect / Protection SLA / Management targets down / A')).toEqual([1]);
    expect((await prometheus.query(`dataprotect_up{target="${TARGETS.replication}"}`)).map((s) => s.value[1])).toEqual(['0']);
    // The cluster is still disconnected in the simulator; no count may say it is not.
    expect(sim.estate.replication.clusters.find((c) => c.name === disconnectedCluster)?.connectionStatus).toBe('ERROR');
    const shown: Record<string, number[]> = {};
    for (const id of [...PROBLEM_COUNTS.management, ...PROBLEM_COUNTS.activities, ...PROBLEM_COUNTS.replication]) shown[id] = await values(id);
    expect(shown).toEqual(Object.fromEntries(Object.keys(shown).map((id) => [id, []])));
  });

  it("the exporter's status counts show no value, not 0, while Prometheus cannot scrape the exporter", async () => {
    const { exporter, prometheus } = running();
    await exporter.stop();
    await until('the failed scrape', async () => (await prometheus.query(`up{job="${SCRAPE_JOB}"} == 0`)).length > 0);
    const shown: Record<string, number[]> = {};
    for (const id of PROBLEM_COUNTS.exporter) shown[id] = await values(id);
    expect(shown).toEqual(Object.fromEntries(PROBLEM_COUNTS.exporter.map((id) => [id, []])));
  });
});
