/**
 * Issue 5 end to end: the simulator, the exporter collecting it every 2 s and a
 * real Prometheus (Debian's package) scraping the exporter every second with
 * the production rules of alerts/ evaluated every second.
 *
 * 1. Healthy estate: every query of every dashboard panel returns data, except
 *    the panels listed in EMPTY_WHEN_HEALTHY, which must be empty; every rule
 *    evaluates without error; the active alerts are exactly those the
 *    simulator's truth calls for (expected-alerts.ts).
 * 2. The estate turns unhealthy (a VM paused, a cluster disconnected, an asset
 *    of an hourly policy without a copy for 3 schedule periods, a protected
 *    asset without a copy, an hour of storage growth, one 503): the matching
 *    alerts become pending with the right labels, no other alert appears (an
 *    asset of the weekly policy whose newest copy is 3 days old stays quiet:
 *    its RPO comes from its schedule), and the panels that were empty by design
 *    return data.
 *
 * The storage and replication APIs are read in both spellings: beside the
 * seed-spelling simulator, a product-spelling one of the same seed and size
 * is collected by the same exporter as two more targets (PRODUCT_TARGETS).
 * Its VMs, groups, clusters, systems, capacities, alerts and contexts must
 * equal its truth as they must the seed one's; step 2 breaks both alike and
 * the alert truth covers both.
 *
 * The rules file is loaded as it is shipped: its `for` durations (5 m and
 * more) cannot elapse in this test, so "pending" is the expected state.
 * The steps run in order and build on each other.
 */
import { readFileSync } from 'node:fs';
import { durationSeconds, parseThresholds, THRESHOLDS_FILE } from '../../scripts/build-rules';
import type { RunningSimulator } from '../../simulator';
import type { Asset } from '../../simulator/management/model';
import { dashboardFiles, loadDashboard, queriesOf, substituteVariables, variableQueryExpr, type DashboardQuery } from '../dashboards/dashboards';
import { allRules } from '../rules/rules-files';
import { comparableKeys, expectedAlerts } from './expected-alerts';
import type { ActiveAlert, PrometheusHarness } from './prometheus-harness';
import { PRODUCT_TARGETS, SCRAPE_JOB, startStack, TARGETS, type Stack } from './stack';

/** The whole file stays well below 90 s: every wait is cut at this deadline. */
const DEADLINE = Date.now() + 75_000;
jest.setTimeout(80_000);

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * The RPOs come from the policies' schedules; this default applies to the
 * policies whose schedule the exporter cannot read (no schedule, an unknown
 * frequency). Those copy daily in the simulator: 36 h keeps them within it.
 */
const DEFAULT_RPO = '36h';

const THRESHOLDS = parseThresholds(readFileSync(THRESHOLDS_FILE, 'utf8'));
const RULES = allRules().alerts;

/**
 * Panels that are empty by design while the estate is healthy, and why. They
 * must be empty in step 1 (else this list is wrong) and return data in step 2.
 */
const EMPTY_WHEN_HEALTHY: Readonly<Record<string, string>> = {
  'DataProtect / Exporter health / API errors by endpoint and code / A': 'only non-2xx answers (> 0); the simulator answers 2xx until 503s are injected',
  'DataProtect / Protection SLA / Assets out of RPO or without a copy / A': 'every protected asset has a copy within its RPO',
  'DataProtect / Protection SLA / Assets out of RPO or without a copy / B': 'every protected asset has a copy within its RPO',
  'DataProtect / Protection SLA / Failure share, last hour / A':
    "no share of nothing: no activity completed in the last hour, as the simulator's clock stands still until step 2 advances it an hour",
  'DataProtect / Protection storage / Time to full per system / A':
    "only systems whose available capacity shrinks; the simulator's capacity moves with its clock, which stands still until step 2 advances it an hour",
  'DataProtect / Replication / Paused VMs / A': 'no VM is paused',
};

const DASHBOARDS = dashboardFiles().map((file) => loadDashboard(file).json);
const QUERIES: DashboardQuery[] = DASHBOARDS.flatMap(queriesOf);
/** The label_values() queries of the template variables ($target, $tier). */
const VARIABLE_QUERIES = DASHBOARDS.flatMap((dashboard) =>
  dashboard.templating.list.flatMap((variable) => {
    const expr = variableQueryExpr(variable);
    return expr ? [{ id: `${dashboard.title} / $${variable.name}`, expr }] : [];
  }),
);

const queryId = (query: DashboardQuery): string => `${query.dashboard} / ${query.panel} / ${query.refId}`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until `done` holds or the time (cut at DEADLINE) is up, and returns its last value for the assertions. */
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const until = Math.min(Date.now() + timeoutMs, DEADLINE);
  let value = await probe();
  while (!done(value) && Date.now() < until) {
    await sleep(500);
    value = await probe();
  }
  return value;
}

/** As Grafana runs it: instant panels at now, the others over the last minute. */
async function hasData(prometheus: PrometheusHarness, query: DashboardQuery): Promise<boolean> {
  const expr = substituteVariables(query.expr);
  if (query.instant) return (await prometheus.query(expr)).length > 0;
  const end = new Date();
  const series = await prometheus.queryRange(expr, new Date(end.getTime() - 60_000), end, 1);
  return series.some((s) => s.values.length > 0);
}

async function emptyQueries(prometheus: PrometheusHarness, queries: readonly DashboardQuery[] = QUERIES): Promise<string[]> {
  const empty: string[] = [];
  for (const query of queries) if (!(await hasData(prometheus, query))) empty.push(queryId(query));
  return empty.sort();
}

function ruleOf(alertname: string) {
  const rule = RULES.find((r) => r.alert === alertname);
  if (!rule) throw new Error(`no rule ${alertname} in alerts/`);
  return rule;
}

const same = (a: readonly string[], b: readonly string[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A path of each API that only its spelling has (the clusters and the systems collections). */
const SPELLED_PATHS = {
  seed: { replication: '/rep-clusters', storage: '/store-systems' },
  product: { replication: '/rp-clusters', storage: '/dd-systems' },
} as const;

type Counts = Record<string, number>;

/** The series of an instant query as "label/label..." -> value, sorted by key. */
async function countsOf(prometheus: PrometheusHarness, expr: string, labels: readonly string[]): Promise<Counts> {
  const series = await prometheus.query(expr);
  return sortedCounts(series.map((s) => [labels.map((label) => s.metric[label] ?? '').join('/'), Number(s.value[1])]));
}

function sortedCounts(entries: Iterable<[string, number]>): Counts {
  return Object.fromEntries([...entries].sort(([a], [b]) => a.localeCompare(b)));
}

function tally(keys: Iterable<string>): Counts {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return sortedCounts(counts);
}

/**
 * What the exporter must report of a simulator's replication and storage
 * estate, from the simulator's truth, next to the queries that read it back.
 */
function replicationAndStorageTruth(sim: RunningSimulator, targets: { replication: string; storage: string }): Array<{ what: string; expr: string; labels: string[]; truth: Counts }> {
  const { replication, storage } = sim.estate;
  const repl = `target="${targets.replication}"`;
  const store = `target="${targets.storage}"`;
  const tiers = storage.systems.flatMap((system) =>
    (['active', 'cloud'] as const).map((tier) => ({ key: `${system.id}/${tier}`, capacity: storage.newestCapacity(system.id, tier).physical_capacity })),
  );
  // A tier the system does not have (no capacity) has no series.
  const present = tiers.filter((t) => t.capacity.total > 0);
  const perSystem = (count: (systemId: string) => number): Counts =>
    sortedCounts(storage.systems.map((system): [string, number] => [system.id, count(system.id)]).filter(([, n]) => n > 0));
  return [
    { what: 'VMs', expr: `count(dataprotect_replication_vm_info{${repl}})`, labels: [], truth: { '': replication.vms.length } },
    {
      what: 'VMs by cluster, role and status',
      // The count of every known status is exported, 0 included: the truth lists those that have VMs.
      expr: `sum by (rep_cluster, role, status) (dataprotect_replication_vms{${repl}}) > 0`,
      labels: ['rep_cluster', 'role', 'status'],
      truth: tally(replication.vms.map((vm) => `${vm.repClusterName}/${vm.role}/${vm.status}`)),
    },
    { what: 'consistency groups', expr: `count(dataprotect_replication_group_info{${repl}})`, labels: [], truth: { '': replication.groups.length } },
    {
      what: 'clusters connected',
      expr: `dataprotect_replication_cluster_connected{${repl}}`,
      labels: ['rep_cluster'],
      truth: sortedCounts(replication.clusters.map((c): [string, number] => [c.name, c.isRegistered && c.connectionStatus === 'OK' ? 1 : 0])),
    },
    { what: 'storage systems', expr: `count(dataprotect_storage_system_info{${store}})`, labels: [], truth: { '': storage.systems.length } },
    {
      what: 'physical capacity',
      expr: `dataprotect_storage_physical_capacity_bytes{${store}}`,
      labels: ['system_id', 'tier'],
      truth: sortedCounts(present.map((t): [string, number] => [t.key, t.capacity.total])),
    },
    {
      what: 'physical used',
      expr: `dataprotect_storage_physical_used_bytes{${store}}`,
      labels: ['system_id', 'tier'],
      truth: sortedCounts(present.map((t): [string, number] => [t.key, t.capacity.used])),
    },
    { what: 'active storage alerts', expr: `sum by (system_id) (dataprotect_storage_alerts{${store}})`, labels: ['system_id'], truth: perSystem((id) => storage.activeAlerts(id).length) },
    {
      what: 'replication contexts',
      expr: `count by (system_id) (dataprotect_storage_replication_state{${store}} == 1)`,
      labels: ['system_id'],
      truth: perSystem((id) => storage.contexts(id).length),
    },
  ];
}

/** A healthy start: no paused VM (the generator pauses a few); two clusters are both connected. */
function makeHealthy(sim: RunningSimulator): void {
  for (const vm of sim.estate.replication.vms) if (vm.status !== 'ACTIVE') sim.estate.replication.setVmStatus(vm.id, 'ACTIVE');
}

interface ReplicationFaults {
  readonly pausedVm: { id: string; name: string; repCluster: string; role: string };
  readonly disconnectedCluster: string;
}

interface Faults extends ReplicationFaults {
  readonly agedAsset: { id: string; name: string; policy: string; lastCopyMs: number; rpoMs: number };
  readonly weeklyAsset: { id: string; lastCopyMs: number; rpoMs: number };
  readonly assetWithoutCopy: { id: string; name: string };
}

/**
 * An hour of simulated activity, then a VM paused and a cluster disconnected:
 * the replication and storage faults, applied to both spellings' simulators.
 * The hour brings new copies and activities, and the storage fills (its
 * hourly capacity sample moves), so that time-to-full has a value. It comes
 * first, so that the evolution cannot resume the VM paused here or give the
 * aged asset of makeUnhealthy a newer copy.
 */
function breakReplicationAndStorage(sim: RunningSimulator): ReplicationFaults {
  const { replication } = sim.estate;
  sim.clock.advance(HOUR_MS);

  const vm = replication.vms.find((v) => v.status === 'ACTIVE');
  if (!vm) throw new Error('the simulator has no ACTIVE VM to pause');
  replication.setVmStatus(vm.id, 'PAUSED');

  const cluster = replication.clusters[0];
  if (!cluster) throw new Error('the simulator has no replication cluster');
  replication.setClusterConnection(cluster.id, 'ERROR');
  return { pausedVm: { id: vm.id, name: vm.name, repCluster: vm.repClusterName, role: vm.role }, disconnectedCluster: cluster.name };
}

/** Turns the estate unhealthy through the simulator's mutators, and checks its truth says so. */
function makeUnhealthy(sim: RunningSimulator): Faults {
  const { management } = sim.estate;
  const replicationFaults = breakReplicationAndStorage(sim);

  // An asset of an hourly policy whose newest copy is 3 schedule periods old,
  // and one of the weekly policy whose newest copy is 3 days old.
  const hourly = assetOfPolicy(sim, 'HOURLY');
  const weekly = assetOfPolicy(sim, 'WEEKLY');
  const asset = hourly.asset;
  const lastCopyMs = ageNewestCopy(sim, asset.id, 3 * hourly.periodMs);
  const weeklyLastCopyMs = ageNewestCopy(sim, weekly.asset.id, 3 * DAY_MS);
  const objectives = { defaultRpoMs: 36 * HOUR_MS };
  expect(management.withinRpo(asset.id, objectives, Date.now())).toBe(false);
  expect(management.withinRpo(weekly.asset.id, objectives, Date.now())).toBe(true);

  const policyId = asset.protectionPolicyId ?? undefined;
  const withoutCopy = management.addAsset({ name: 'e2e-never-copied', type: asset.type, ...(policyId ? { policyId } : {}) });
  expect(withoutCopy.protectionStatus).toBe('PROTECTED');
  expect(management.latestCopy(withoutCopy.id)).toBeUndefined();

  // Two failed requests, a few runs apart: each is retried, so no collector
  // fails. Two, because the error counter's series is created by the first
  // one, at 1: rate() sees an increase only from the second.
  const error = { api: 'management', path: '/api/v2/alerts', times: 1, fault: { kind: 'status', status: 503 } } as const;
  sim.faults.add(error);
  sim.faults.add({ ...error, skip: 4 });

  return {
    ...replicationFaults,
    agedAsset: { id: asset.id, name: asset.name, policy: asset._embedded.protectionPolicy?.name ?? '', lastCopyMs, rpoMs: hourly.rpoMs },
    weeklyAsset: { id: weekly.asset.id, lastCopyMs: weeklyLastCopyMs, rpoMs: weekly.rpoMs },
    assetWithoutCopy: { id: withoutCopy.id, name: withoutCopy.name },
  };
}

/** A protected asset with a copy, of a policy whose PROTECTION schedule has this frequency; the schedule's period and the RPO it implies. */
function assetOfPolicy(sim: RunningSimulator, frequency: string): { asset: Asset; periodMs: number; rpoMs: number } {
  const { management } = sim.estate;
  for (const policy of management.policies()) {
    const schedule = policy.stages.find((stage) => stage.type === 'PROTECTION')?.operations[0]?.schedule;
    const rpoMs = management.scheduleRpoMs(policy.id);
    if (schedule?.frequency !== frequency || rpoMs === null) continue;
    const asset = management.assets().find((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && a.protectionPolicyId === policy.id && management.latestCopy(a.id));
    const periodMs = schedule.interval * (frequency === 'HOURLY' ? HOUR_MS : 7 * DAY_MS);
    if (asset) return { asset, periodMs, rpoMs };
  }
  throw new Error(`the simulator has no protected asset with a copy in a ${frequency} policy`);
}

/**
 * Makes the asset's newest copy `ageMs` old (real clock, whole seconds), by
 * both sources the exporter reads: lastAvailableCopyTime (pinned, so later
 * copies no longer move it) and latest-copies (the newer copies are removed).
 */
function ageNewestCopy(sim: RunningSimulator, assetId: string, ageMs: number): number {
  const { management } = sim.estate;
  const lastCopyMs = Math.floor((Date.now() - ageMs) / 1000) * 1000;
  for (const copy of management.copies(assetId)) if (Date.parse(copy.createTime) > lastCopyMs) management.removeCopy(copy.id);
  management.addCopy(assetId, { createTime: new Date(lastCopyMs), retentionTime: new Date(Date.now() + 7 * DAY_MS) });
  management.setAssetLastCopy(assetId, new Date(lastCopyMs));
  expect(Date.parse(management.latestCopy(assetId)?.createTime ?? '')).toBe(lastCopyMs);
  expect(management.asset(assetId)?.lastAvailableCopyTime).toBe(new Date(lastCopyMs).toISOString());
  return lastCopyMs;
}

function productSimOf(stack: Stack): RunningSimulator {
  if (!stack.productSim) throw new Error('the stack was started without the product-spelling simulator');
  return stack.productSim;
}

describe('dashboards and alert rules on a real Prometheus scraping the exporter against the simulator', () => {
  let stack: Stack | undefined;

  function running(): Stack {
    if (!stack) throw new Error('the stack did not start');
    return stack;
  }

  /** The comparable active alerts and the truth's expectation, taken together. */
  async function alertsAndTruth(): Promise<{ alerts: ActiveAlert[]; actual: string[]; expected: string[] }> {
    const { prometheus, config } = running();
    const alerts = await prometheus.alerts();
    const truth = expectedAlerts(running(), config.collection, THRESHOLDS);
    return { alerts, actual: comparableKeys(alerts, truth), expected: truth.active };
  }

  beforeAll(async () => {
    stack = await startStack({
      seed: 11,
      // nine policies: every kind of schedule (hourly, daily, weekly, none, unknown frequency)
      size: { assets: 60, assetsWithoutCopyShare: 0, protectionPolicies: 9, replicatedVms: 16, replicationClusters: 2, storageSystems: 2 },
      collection: { defaultRpo: DEFAULT_RPO },
      schedule: '*/2 * * * * *',
      prepare: makeHealthy,
      productSpelling: true,
    });
    const { exporter, prometheus } = stack;
    await prometheus.waitFor(
      async () => (exporter.runtime.firstRoundComplete() && (await prometheus.query(`up{job="${SCRAPE_JOB}"} == 1`)).length > 0 ? true : undefined),
      Math.max(1_000, DEADLINE - Date.now() - 50_000),
      "the exporter's first collections, scraped",
    );
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('lists every panel expected empty under its real dashboard and panel', () => {
    const ids = QUERIES.map(queryId);
    expect(Object.keys(EMPTY_WHEN_HEALTHY).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('healthy estate: every dashboard query returns data, except the panels empty by design', async () => {
    const { prometheus } = running();
    const expectedEmpty = Object.keys(EMPTY_WHEN_HEALTHY).sort();
    // Rates need two scrapes, recording rules an evaluation: wait for the data to settle.
    const empty = await eventually(() => emptyQueries(prometheus), (value) => same(value, expectedEmpty), 20_000);
    expect(empty).toEqual(expectedEmpty);

    for (const variable of VARIABLE_QUERIES) {
      expect({ variable: variable.id, series: (await prometheus.query(substituteVariables(variable.expr))).length > 0 }).toEqual({
        variable: variable.id,
        series: true,
      });
    }
  });

  it("evaluates every rule without error on the exporter's series", async () => {
    const rules = (await running().prometheus.rules()).flatMap((group) => group.rules);
    expect(rules.length).toBe(allRules().alerts.length + allRules().records.length);
    expect(rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`)).toEqual([]);
  });

  it.each([
    { spelling: 'seed' as const, targets: TARGETS, simOf: (stack: Stack) => stack.sim },
    { spelling: 'product' as const, targets: PRODUCT_TARGETS, simOf: productSimOf },
  ])("$spelling spelling: the replication and storage series count exactly the simulator's truth", async ({ spelling, targets, simOf }) => {
    const stack = running();
    const sim = simOf(stack);
    // The exporter read this simulator in its spelling: its spelled paths were asked for.
    const paths = SPELLED_PATHS[spelling];
    expect({ replication: sim.stats.count('replication', paths.replication) > 0, storage: sim.stats.count('storage', paths.storage) > 0 }).toEqual({ replication: true, storage: true });
    const checks = replicationAndStorageTruth(sim, targets);
    const read = async () => Promise.all(checks.map(async (check) => ({ what: check.what, counts: await countsOf(stack.prometheus, check.expr, check.labels) })));
    const expected = checks.map((check) => ({ what: check.what, counts: check.truth }));
    const actual = await eventually(read, (value) => JSON.stringify(value) === JSON.stringify(expected), 10_000);
    expect(actual).toEqual(expected);
    // Not vacuous: the estate has something of each.
    for (const check of checks) expect({ what: check.what, empty: Object.keys(check.truth).length === 0 }).toEqual({ what: check.what, empty: false });
  });

  it('healthy estate: exactly the alerts the truth calls for are active', async () => {
    const { sim } = running();
    expect(sim.estate.replication.clusters.every((c) => c.isRegistered && c.connectionStatus === 'OK')).toBe(true);
    const { actual, expected } = await eventually(alertsAndTruth, (v) => same(v.actual, v.expected), 10_000);
    // The scenario starts healthy: nothing about assets, VMs or clusters (the
    // simulator's storage may lag or be full: the truth decides).
    expect(expected.filter((key) => /^DataProtect(Asset|Policy|Replication)/.test(key))).toEqual([]);
    expect(actual).toEqual(expected);
  });

  describe('after the estate turns unhealthy', () => {
    let faults: Faults;
    let productFaults: ReplicationFaults;

    beforeAll(() => {
      faults = makeUnhealthy(running().sim);
      productFaults = breakReplicationAndStorage(productSimOf(running()));
    });

    it('puts the matching alerts pending with the right labels, and no other', async () => {
      const { prometheus } = running();
      const { alerts, actual, expected } = await eventually(alertsAndTruth, (v) => same(v.actual, v.expected), 25_000);
      expect(actual).toEqual(expected);

      const find = (alertname: string, labels: Readonly<Record<string, string>>) =>
        alerts.find((alert) => alert.labels.alertname === alertname && Object.entries(labels).every(([name, value]) => alert.labels[name] === value));
      const severityOf = (alertname: string) => ruleOf(alertname).labels?.severity;

      // The same faults in both spellings: each alert under its own target.
      const replicationAlerts = [
        { target: TARGETS.replication, broken: faults as ReplicationFaults },
        { target: PRODUCT_TARGETS.replication, broken: productFaults },
      ].flatMap(({ target, broken }) => {
        const paused = find('DataProtectReplicationVMPaused', { target, vm_id: broken.pausedVm.id });
        expect(paused?.labels).toMatchObject({ target, status: 'PAUSED', severity: severityOf('DataProtectReplicationVMPaused') });
        // Its names are looked up for the description (labels would start the `for` over when they change).
        expect(paused?.annotations.description).toContain(`VM ${broken.pausedVm.name} (${broken.pausedVm.role},`);
        expect(paused?.annotations.description).toContain(`replication cluster ${broken.pausedVm.repCluster})`);
        const disconnected = find('DataProtectReplicationClusterDisconnected', { target, rep_cluster: broken.disconnectedCluster });
        expect(disconnected?.labels).toMatchObject({ target, severity: severityOf('DataProtectReplicationClusterDisconnected') });
        return [paused, disconnected];
      });

      const aged = find('DataProtectAssetOutOfRPO', { asset_id: faults.agedAsset.id });
      expect(aged?.labels).toMatchObject({
        target: TARGETS.management,
        asset_name: faults.agedAsset.name,
        policy: faults.agedAsset.policy,
        severity: severityOf('DataProtectAssetOutOfRPO'),
      });
      // The description looks the RPO up with a query template: it must find the schedule's.
      expect(aged?.annotations.description).toContain(`its RPO is ${humanized(faults.agedAsset.rpoMs)}`);
      expect(aged?.annotations.runbook_url).toMatch(/docs\/runbook\.md#dataprotectassetoutofrpo$/);
      // The exporter reports the aged copy time exactly, not a newer copy's.
      const lastCopy = await prometheus.query(`dataprotect_asset_last_copy_timestamp_seconds{asset_id="${faults.agedAsset.id}"}`);
      expect(lastCopy.map((s) => Number(s.value[1]))).toEqual([faults.agedAsset.lastCopyMs / 1000]);

      const withoutCopy = find('DataProtectAssetWithoutCopy', { asset_id: faults.assetWithoutCopy.id });
      expect(withoutCopy?.labels).toMatchObject({ target: TARGETS.management, asset_name: faults.assetWithoutCopy.name });

      // Their `for` (5 m and more) cannot have elapsed: pending, not firing.
      for (const alert of [...replicationAlerts, aged, withoutCopy]) {
        expect(durationSeconds(ruleOf(alert?.labels.alertname ?? '').for ?? '0s')).toBeGreaterThanOrEqual(300);
        expect(alert?.state).toBe('pending');
      }

      // Spelled out (the comparison above already implies them): only the aged
      // asset is out of RPO, and the exporter itself is fine.
      const names = (alertname: string) => alerts.filter((a) => a.labels.alertname === alertname);
      expect(names('DataProtectAssetOutOfRPO').map((a) => a.labels.asset_id)).toEqual([faults.agedAsset.id]);
      // The weekly asset's 3-day-old copy is within the RPO its schedule implies, which Prometheus has.
      const weeklyRpo = await prometheus.query(`dataprotect_asset_rpo_seconds{asset_id="${faults.weeklyAsset.id}"}`);
      expect(weeklyRpo.map((s) => Number(s.value[1]))).toEqual([faults.weeklyAsset.rpoMs / 1000]);
      expect(faults.weeklyAsset.rpoMs).toBeGreaterThan(7 * DAY_MS);
      const weeklyCopy = await prometheus.query(`dataprotect_asset_last_copy_timestamp_seconds{asset_id="${faults.weeklyAsset.id}"}`);
      expect(weeklyCopy.map((s) => Number(s.value[1]))).toEqual([faults.weeklyAsset.lastCopyMs / 1000]);
      for (const quiet of ['DataProtectTargetDown', 'DataProtectCollectorFailing', 'DataProtectCollectorDataStale', 'DataProtectProtectionUnmonitored', 'DataProtectExporterDown', 'DataProtectExporterAbsent']) {
        expect({ alert: quiet, active: names(quiet).map((a) => a.labels) }).toEqual({ alert: quiet, active: [] });
      }
      // Storage: exactly what the simulator's capacity figures call for (part of the truth above).
      expect(actual.filter((key) => key.startsWith('DataProtectStorageAlmostFull'))).toEqual(
        expected.filter((key) => key.startsWith('DataProtectStorageAlmostFull')),
      );
    });

    it('fills the panels that were empty by design', async () => {
      const { prometheus } = running();
      const listed = QUERIES.filter((query) => queryId(query) in EMPTY_WHEN_HEALTHY);
      const empty = await eventually(() => emptyQueries(prometheus, listed), (value) => value.length === 0, 20_000);
      expect(empty).toEqual([]);

      const table = await prometheus.query(
        substituteVariables(QUERIES.find((q) => queryId(q) === 'DataProtect / Protection SLA / Assets out of RPO or without a copy / B')?.expr ?? ''),
      );
      expect(table.map((s) => s.metric.asset_id).sort()).toEqual([faults.agedAsset.id, faults.assetWithoutCopy.id].sort());
      const pausedTable = await prometheus.query(substituteVariables(QUERIES.find((q) => queryId(q) === 'DataProtect / Replication / Paused VMs / A')?.expr ?? ''));
      expect(pausedTable.map((s) => s.metric.vm_id)).toContain(faults.pausedVm.id);
      expect(pausedTable.map((s) => s.metric.vm_id)).toContain(productFaults.pausedVm.id);
    });
  });
});

/** Prometheus's humanizeDuration of whole seconds over an hour: 36 h is "1d 12h 0m 0s", 7.5 h "7h 30m 0s". */
function humanized(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const days = Math.floor(seconds / 86_400);
  const rest = `${Math.floor((seconds % 86_400) / 3600)}h ${Math.floor((seconds % 3600) / 60)}m ${seconds % 60}s`;
  return days > 0 ? `${days}d ${rest}` : rest;
}
