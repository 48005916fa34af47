/**
 * The dashboard queries while one target is served by two exporters at once:
 * the sharded StatefulSet (deploy/kubernetes/sharded/) replaces its pods one by
 * one when its shard count changes, and an old pod and a new one then collect
 * and serve the same target, with different `instance` and `pod` labels
 * (docs/operations.md#sharding); a second scrape job of one exporter does the
 * same with `job`. test/rules/duplicates.test.yml holds the rules to it; this
 * file holds the dashboards.
 *
 * Every query about the estate is evaluated by `promtool test rules` (with the
 * recording rules of alerts/, which several panels read) in two worlds of the
 * same estate: in one each target is served by one pod, in the other the
 * targets mgmt-a, dd-a and rp-a are served by two (pod-1 and pod-3, identical
 * series). The panel must show the same in both: the same samples, neither
 * "many-to-many matching not allowed" (a join) nor a figure counted twice (a
 * sum or count). The expectations are the panel's figures of the estate
 * below, one series per target, asset, system ... and no instance label.
 *
 * The queries about the exporters themselves (their API requests, runs,
 * versions) are left out: two exporters serving one target make two sets of
 * requests and runs, and each is there once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { testRules } from '../rules/promtool';
import { loadGroups, ruleFiles } from '../rules/rules-files';
import { dashboardFiles, type DashboardQuery, loadDashboard, queriesOf, substituteVariables } from './dashboards';

const QUERIES = dashboardFiles().flatMap((file) => queriesOf(loadDashboard(file).json));
const queryId = (query: DashboardQuery): string => `${query.dashboard} / ${query.panel} / ${query.refId}`;

/** A series of the estate as one exporter serves it: labels without instance, and promtool's values notation. */
type Series = readonly [metric: string, labels: Readonly<Record<string, string>>, values: string];

/** Steps of one minute; the queries run at 2 h, with an hour and more of history behind. */
const STEPS = 150;
const EVAL_TIME = '2h';
const NOW = 7200;
const constant = (value: number): string => `${value}x${STEPS}`;
/** The value of time() at every step: a timestamp of "just now". */
const NOW_AT_EACH_STEP = `0+60x${STEPS}`;
/** A counter growing by `perMinute` every minute. */
const counter = (perMinute: number): string => `0+${perMinute}x${STEPS}`;
const DAY = 86400;

const mgmtA = { target: 'mgmt-a' };
const mgmtB = { target: 'mgmt-b' };
const ddA = { target: 'dd-a' };
const rpA = { target: 'rp-a' };
const asset = (target: object, id: string, policy: string) => ({ ...target, asset_id: id, asset_name: `vm-${id}`, asset_type: 'VM', policy });
const vm = (id: string, rep_cluster: string) => ({ ...rpA, vm_id: id, vm_name: `vm-${id}`, group: 'cg-1', rep_cluster, role: 'production' });

const ESTATE: readonly Series[] = [
  // mgmt-a is down (its series stay from its last run); the others are up.
  ['dataprotect_up', { ...mgmtA, kind: 'management' }, constant(0)],
  ['dataprotect_up', { ...mgmtB, kind: 'management' }, constant(1)],
  ['dataprotect_up', { ...ddA, kind: 'storage' }, constant(1)],
  ['dataprotect_up', { ...rpA, kind: 'replication' }, constant(1)],
  // mgmt-a's assets collector fails, its last success 2 h old (12 intervals of 10 min): stale.
  ['dataprotect_collector_success', { ...mgmtA, collector: 'assets' }, constant(0)],
  ['dataprotect_collector_last_success_timestamp_seconds', { ...mgmtA, collector: 'assets' }, constant(0)],
  ['dataprotect_collector_schedule_interval_seconds', { ...mgmtA, collector: 'assets' }, constant(600)],
  ['dataprotect_collector_success', { ...mgmtA, collector: 'activities' }, constant(1)],
  ['dataprotect_collector_last_success_timestamp_seconds', { ...mgmtA, collector: 'activities' }, NOW_AT_EACH_STEP],
  ['dataprotect_collector_schedule_interval_seconds', { ...mgmtA, collector: 'activities' }, constant(300)],
  ['dataprotect_collector_success', { ...mgmtB, collector: 'assets' }, constant(1)],
  ['dataprotect_collector_last_success_timestamp_seconds', { ...mgmtB, collector: 'assets' }, NOW_AT_EACH_STEP],
  ['dataprotect_collector_schedule_interval_seconds', { ...mgmtB, collector: 'assets' }, constant(600)],
  ['dataprotect_collector_success', { ...ddA, collector: 'capacity' }, constant(1)],
  ['dataprotect_collector_last_success_timestamp_seconds', { ...ddA, collector: 'capacity' }, NOW_AT_EACH_STEP],
  ['dataprotect_collector_schedule_interval_seconds', { ...ddA, collector: 'capacity' }, constant(300)],
  ['dataprotect_collector_success', { ...rpA, collector: 'vms' }, constant(1)],
  ['dataprotect_collector_last_success_timestamp_seconds', { ...rpA, collector: 'vms' }, NOW_AT_EACH_STEP],
  ['dataprotect_collector_schedule_interval_seconds', { ...rpA, collector: 'vms' }, constant(300)],

  // Assets, RPO 1 day: a1 and a5 within it, a2 two days old, a3 protected without
  // a copy, a4 unprotected; b1 within it, b2 two days old. Halves: exact averages.
  ['dataprotect_asset_info', { ...asset(mgmtA, 'a1', 'Gold'), protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_asset_info', { ...asset(mgmtA, 'a2', 'Gold'), protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_asset_info', { ...asset(mgmtA, 'a3', 'Gold'), protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_asset_info', { ...asset(mgmtA, 'a4', 'Gold'), protection_status: 'UNPROTECTED' }, constant(1)],
  ['dataprotect_asset_info', { ...asset(mgmtA, 'a5', 'Gold'), protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_asset_info', { ...asset(mgmtB, 'b1', 'Silver'), protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_asset_info', { ...asset(mgmtB, 'b2', 'Silver'), protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_asset_last_copy_timestamp_seconds', asset(mgmtA, 'a1', 'Gold'), NOW_AT_EACH_STEP],
  ['dataprotect_asset_last_copy_timestamp_seconds', asset(mgmtA, 'a2', 'Gold'), constant(-2 * DAY)],
  ['dataprotect_asset_last_copy_timestamp_seconds', asset(mgmtA, 'a5', 'Gold'), NOW_AT_EACH_STEP],
  ['dataprotect_asset_last_copy_timestamp_seconds', asset(mgmtB, 'b1', 'Silver'), NOW_AT_EACH_STEP],
  ['dataprotect_asset_last_copy_timestamp_seconds', asset(mgmtB, 'b2', 'Silver'), constant(-2 * DAY)],
  ['dataprotect_asset_without_copy', asset(mgmtA, 'a3', 'Gold'), constant(1)],
  ['dataprotect_asset_rpo_seconds', asset(mgmtA, 'a1', 'Gold'), constant(DAY)],
  ['dataprotect_asset_rpo_seconds', asset(mgmtA, 'a2', 'Gold'), constant(DAY)],
  ['dataprotect_asset_rpo_seconds', asset(mgmtA, 'a3', 'Gold'), constant(DAY)],
  ['dataprotect_asset_rpo_seconds', asset(mgmtA, 'a5', 'Gold'), constant(DAY)],
  ['dataprotect_asset_rpo_seconds', asset(mgmtB, 'b1', 'Silver'), constant(DAY)],
  ['dataprotect_asset_rpo_seconds', asset(mgmtB, 'b2', 'Silver'), constant(DAY)],
  ['dataprotect_policy_rpo_seconds', { ...mgmtA, policy_id: 'p-gold', policy: 'Gold', source: 'schedule' }, constant(DAY)],
  ['dataprotect_policy_rpo_seconds', { ...mgmtB, policy_id: 'p-silver', policy: 'Silver', source: 'config' }, constant(DAY)],
  ['dataprotect_assets', { ...mgmtA, asset_type: 'VM', protection_status: 'PROTECTED' }, constant(4)],
  ['dataprotect_assets', { ...mgmtA, asset_type: 'VM', protection_status: 'UNPROTECTED' }, constant(1)],
  ['dataprotect_assets', { ...mgmtB, asset_type: 'VM', protection_status: 'PROTECTED' }, constant(2)],
  ['dataprotect_assets_without_copy', { ...mgmtA, asset_type: 'VM', protection_status: 'PROTECTED' }, constant(1)],
  ['dataprotect_assets_without_copy', { ...mgmtB, asset_type: 'VM', protection_status: 'PROTECTED' }, constant(0)],
  ['dataprotect_compliance_objectives', { ...mgmtA, policy: 'Gold', status: 'SUCCEEDED' }, constant(4)],
  ['dataprotect_compliance_objectives', { ...mgmtA, policy: 'Gold', status: 'FAILED' }, constant(1)],
  ['dataprotect_compliance_objectives', { ...mgmtB, policy: 'Silver', status: 'SUCCEEDED' }, constant(2)],

  // Activities: mgmt-a completes 2 OK and 1 FAILED protection JOB a minute, mgmt-b 1 OK.
  ['dataprotect_activities_window', { ...mgmtA, class_type: 'JOB', category: 'PROTECT', result: 'FAILED' }, constant(2)],
  ['dataprotect_activities_window', { ...mgmtA, class_type: 'JOB', category: 'PROTECT', result: 'OK' }, constant(5)],
  ['dataprotect_activities_window', { ...mgmtA, class_type: 'JOB_GROUP', category: 'PROTECT', result: 'FAILED' }, constant(1)],
  ['dataprotect_activities_window', { ...mgmtB, class_type: 'JOB', category: 'PROTECT', result: 'FAILED' }, constant(1)],
  ['dataprotect_activities_completed_total', { ...mgmtA, class_type: 'JOB', category: 'PROTECT', result: 'OK' }, counter(2)],
  ['dataprotect_activities_completed_total', { ...mgmtA, class_type: 'JOB', category: 'PROTECT', result: 'FAILED' }, counter(1)],
  ['dataprotect_activities_completed_total', { ...mgmtB, class_type: 'JOB', category: 'PROTECT', result: 'OK' }, counter(1)],

  // Storage: system s1 of dd-a, its active tier 80 % used and shrinking by 100 bytes a minute.
  ['dataprotect_storage_system_info', { ...ddA, system_id: 's1', system_name: 'dd-one', model: 'DD9400', version: '8.1' }, constant(1)],
  ['dataprotect_storage_physical_capacity_bytes', { ...ddA, system_id: 's1', tier: 'active' }, constant(1_000_000)],
  ['dataprotect_storage_physical_used_bytes', { ...ddA, system_id: 's1', tier: 'active' }, constant(800_000)],
  ['dataprotect_storage_physical_available_bytes', { ...ddA, system_id: 's1', tier: 'active' }, `1000000-100x${STEPS}`],
  ['dataprotect_storage_compression_factor', { ...ddA, system_id: 's1', tier: 'active' }, constant(5)],
  ['dataprotect_storage_physical_capacity_bytes', { ...ddA, system_id: 's1', tier: 'cloud' }, constant(500_000)],
  ['dataprotect_storage_physical_used_bytes', { ...ddA, system_id: 's1', tier: 'cloud' }, constant(100_000)],
  ['dataprotect_storage_physical_available_bytes', { ...ddA, system_id: 's1', tier: 'cloud' }, constant(400_000)],
  ['dataprotect_storage_compression_factor', { ...ddA, system_id: 's1', tier: 'cloud' }, constant(2)],
  ['dataprotect_storage_alerts', { ...ddA, system_id: 's1', severity: 'WARNING', class: 'Capacity' }, constant(2)],
  ['dataprotect_storage_alerts', { ...ddA, system_id: 's1', severity: 'CRITICAL', class: 'HardwareFailure' }, constant(0)],
  ['dataprotect_storage_replication_lag_seconds', { ...ddA, system_id: 's1', context: 'ctx-1' }, constant(120)],
  ['dataprotect_storage_replication_state', { ...ddA, system_id: 's1', context: 'ctx-1', state: 'NORMAL' }, constant(1)],
  ['dataprotect_storage_replication_state', { ...ddA, system_id: 's1', context: 'ctx-1', state: 'ERROR' }, constant(0)],
  ['dataprotect_storage_system_collector_success', { ...ddA, system_id: 's1', collector: 'capacity' }, constant(1)],
  ['dataprotect_storage_system_collector_success', { ...ddA, system_id: 's1', collector: 'alerts' }, constant(0)],

  // Replication: cluster c1 connected, c2 not; vm-v1 paused.
  ['dataprotect_replication_cluster_connected', { ...rpA, rep_cluster: 'c1' }, constant(1)],
  ['dataprotect_replication_cluster_connected', { ...rpA, rep_cluster: 'c2' }, constant(0)],
  ['dataprotect_replication_vms', { ...rpA, rep_cluster: 'c1', role: 'production', status: 'ACTIVE' }, constant(1)],
  ['dataprotect_replication_vms', { ...rpA, rep_cluster: 'c1', role: 'production', status: 'PAUSED' }, constant(1)],
  ['dataprotect_replication_vms', { ...rpA, rep_cluster: 'c2', role: 'production', status: 'ACTIVE' }, constant(1)],
  ['dataprotect_replication_vm_info', { ...vm('v1', 'c1'), guest_os: 'linux' }, constant(1)],
  ['dataprotect_replication_vm_info', { ...vm('v2', 'c1'), guest_os: 'linux' }, constant(1)],
  ['dataprotect_replication_vm_info', { ...vm('v3', 'c2'), guest_os: 'windows' }, constant(1)],
  ['dataprotect_replication_vm_status', { ...vm('v1', 'c1'), status: 'ACTIVE' }, constant(0)],
  ['dataprotect_replication_vm_status', { ...vm('v1', 'c1'), status: 'PAUSED' }, constant(1)],
  ['dataprotect_replication_vm_status', { ...vm('v2', 'c1'), status: 'ACTIVE' }, constant(1)],
  ['dataprotect_replication_vm_status', { ...vm('v2', 'c1'), status: 'PAUSED' }, constant(0)],
  ['dataprotect_replication_vm_status', { ...vm('v3', 'c2'), status: 'ACTIVE' }, constant(1)],
  ['dataprotect_replication_vm_status', { ...vm('v3', 'c2'), status: 'PAUSED' }, constant(0)],
  ['dataprotect_replication_vm_disk_bytes', { ...rpA, vm_id: 'v1', vm_name: 'vm-v1', included: 'true' }, constant(100)],
  ['dataprotect_replication_vm_disk_bytes', { ...rpA, vm_id: 'v1', vm_name: 'vm-v1', included: 'false' }, constant(50)],
  ['dataprotect_replication_vm_disk_bytes', { ...rpA, vm_id: 'v2', vm_name: 'vm-v2', included: 'true' }, constant(200)],
  ['dataprotect_replication_vm_disk_bytes', { ...rpA, vm_id: 'v3', vm_name: 'vm-v3', included: 'true' }, constant(400)],
];

/** The pods serving each target: pod-3 also serves the first three in the duplicated world. */
const WORLDS = {
  single: { 'mgmt-a': ['pod-1'], 'mgmt-b': ['pod-2'], 'dd-a': ['pod-1'], 'rp-a': ['pod-1'] },
  duplicated: { 'mgmt-a': ['pod-1', 'pod-3'], 'mgmt-b': ['pod-2'], 'dd-a': ['pod-1', 'pod-3'], 'rp-a': ['pod-1', 'pod-3'] },
} as const satisfies Record<string, Record<string, readonly string[]>>;
type World = keyof typeof WORLDS;

const selector = (metric: string, labels: Readonly<Record<string, string>>): string =>
  `${metric}{${Object.entries(labels)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(', ')}}`;

function inputSeries(world: World): Array<{ series: string; values: string }> {
  return ESTATE.flatMap(([metric, labels, values]) =>
    (WORLDS[world][labels.target as keyof (typeof WORLDS)[World]] as readonly string[]).map((pod) => ({
      // as the ServiceMonitor scrapes a pod of the StatefulSet
      series: selector(metric, { job: 'dataprotect-exporter', instance: `${pod}:8497`, pod: `dataprotect-exporter-${pod}`, ...labels }),
      values,
    })),
  );
}

/** One sample of a query's result: its labels (`{}` for none) and value. */
type Sample = readonly [labels: string, value: number];
const TIME_TO_FULL = 988_000 / (100 / 60); // available bytes at 2 h over the 100 bytes a minute they shrink by
const ASSET_A2 = 'asset_id="a2", asset_name="vm-a2", asset_type="VM", policy="Gold", target="mgmt-a"';
const ASSET_A3 = 'asset_id="a3", asset_name="vm-a3", asset_type="VM", policy="Gold", target="mgmt-a"';
const ASSET_B2 = 'asset_id="b2", asset_name="vm-b2", asset_type="VM", policy="Silver", target="mgmt-b"';
const S1 = 'target="dd-a", system_id="s1", system_name="dd-one"';

/** What each panel shows of the estate, whether one or two pods serve a target. */
const EXPECTED: Readonly<Record<string, readonly Sample[]>> = {
  'DataProtect / Exporter health / Targets up / A': [['{}', 3]],
  'DataProtect / Exporter health / Targets down / A': [['{}', 1]],
  'DataProtect / Exporter health / Failing collectors / A': [['{}', 1]],
  'DataProtect / Exporter health / Stale collectors / A': [['{}', 1]],
  'DataProtect / Exporter health / Collector success / A': [
    ['{target="mgmt-a", collector="assets"}', 0],
    ['{target="mgmt-a", collector="activities"}', 1],
    ['{target="mgmt-b", collector="assets"}', 1],
    ['{target="dd-a", collector="capacity"}', 1],
    ['{target="rp-a", collector="vms"}', 1],
  ],
  'DataProtect / Exporter health / Freshness (age of the last success, in schedule intervals) / A': [
    ['{target="mgmt-a", collector="assets"}', NOW / 600],
    ['{target="mgmt-a", collector="activities"}', 0],
    ['{target="mgmt-b", collector="assets"}', 0],
    ['{target="dd-a", collector="capacity"}', 0],
    ['{target="rp-a", collector="vms"}', 0],
  ],

  'DataProtect / Protection SLA / Assets within RPO / A': [['{}', 0.5]],
  'DataProtect / Protection SLA / Assets out of RPO / A': [['{}', 3]],
  'DataProtect / Protection SLA / Protected assets without a copy / A': [['{}', 1]],
  'DataProtect / Protection SLA / Failed activities (trailing window) / A': [['{}', 3]],
  'DataProtect / Protection SLA / Protected assets / A': [['{}', 6]],
  'DataProtect / Protection SLA / Management targets down / A': [['{}', 1]],
  'DataProtect / Protection SLA / Share of assets within RPO / A': [
    ['target:dataprotect_assets_within_rpo:ratio{target="mgmt-a"}', 0.5],
    ['target:dataprotect_assets_within_rpo:ratio{target="mgmt-b"}', 0.5],
  ],
  'DataProtect / Protection SLA / Compliance per policy (assets within RPO) / A': [
    ['target_policy:dataprotect_assets_within_rpo:ratio{target="mgmt-a", policy="Gold"}', 0.5],
    ['target_policy:dataprotect_assets_within_rpo:ratio{target="mgmt-b", policy="Silver"}', 0.5],
  ],
  'DataProtect / Protection SLA / SLA per policy / A': [
    ['{target="mgmt-a", policy="Gold"}', 0.5],
    ['{target="mgmt-b", policy="Silver"}', 0.5],
  ],
  'DataProtect / Protection SLA / SLA per policy / B': [
    ['{target="mgmt-a", policy="Gold"}', 0.5],
    ['{target="mgmt-b", policy="Silver"}', 0.5],
  ],
  'DataProtect / Protection SLA / SLA per policy / C': [
    ['{target="mgmt-a", policy="Gold"}', 0.5],
    ['{target="mgmt-b", policy="Silver"}', 0.5],
  ],
  'DataProtect / Protection SLA / SLA per policy / D': [
    ['{target="mgmt-a", policy="Gold", source="schedule"}', DAY],
    ['{target="mgmt-b", policy="Silver", source="config"}', DAY],
  ],
  'DataProtect / Protection SLA / Assets out of RPO or without a copy / A': [
    [`{${ASSET_A2}}`, NOW + 2 * DAY],
    [`{${ASSET_B2}}`, NOW + 2 * DAY],
  ],
  'DataProtect / Protection SLA / Assets out of RPO or without a copy / B': [
    [`{${ASSET_A2}}`, DAY],
    [`{${ASSET_A3}}`, DAY],
    [`{${ASSET_B2}}`, DAY],
  ],
  'DataProtect / Protection SLA / Activity results / A': [
    ['{category="PROTECT", result="OK"}', 3],
    ['{category="PROTECT", result="FAILED"}', 1],
  ],
  'DataProtect / Protection SLA / Failed activities by category (trailing window) / A': [
    ['{target="mgmt-a", category="PROTECT"}', 2],
    ['{target="mgmt-b", category="PROTECT"}', 1],
  ],
  'DataProtect / Protection SLA / Failure share, last hour / A': [
    ['target_category:dataprotect_activities_failed:ratio1h{target="mgmt-a", category="PROTECT"}', 1 / 3],
    ['target_category:dataprotect_activities_failed:ratio1h{target="mgmt-b", category="PROTECT"}', 0],
  ],
  'DataProtect / Protection SLA / Compliance objectives per policy / A': [
    ['{policy="Gold", status="SUCCEEDED"}', 4],
    ['{policy="Gold", status="FAILED"}', 1],
    ['{policy="Silver", status="SUCCEEDED"}', 2],
  ],
  'DataProtect / Protection SLA / Assets by protection status / A': [
    ['{protection_status="PROTECTED"}', 6],
    ['{protection_status="UNPROTECTED"}', 1],
  ],
  'DataProtect / Protection SLA / Protected assets without a copy, by type / A': [['{asset_type="VM"}', 1]],

  'DataProtect / Protection storage / Used share per system / A': [
    [`{${S1}, tier="active"}`, 0.8],
    [`{${S1}, tier="cloud"}`, 0.2],
  ],
  'DataProtect / Protection storage / Time to full per system / A': [[`{${S1}, tier="active"}`, TIME_TO_FULL]],
  'DataProtect / Protection storage / System collection / A': [
    ['{target="dd-a", system_id="s1", collector="alerts"}', 0],
    ['{target="dd-a", system_id="s1", collector="capacity"}', 1],
  ],
  'DataProtect / Protection storage / Physical capacity trend / A': [
    [`{${S1}, tier="active"}`, 800_000],
    [`{${S1}, tier="cloud"}`, 100_000],
  ],
  'DataProtect / Protection storage / Physical capacity trend / B': [
    [`{${S1}, tier="active"}`, 1_000_000],
    [`{${S1}, tier="cloud"}`, 500_000],
  ],
  'DataProtect / Protection storage / Compression factor / A': [
    [`{${S1}, tier="active"}`, 5],
    [`{${S1}, tier="cloud"}`, 2],
  ],
  'DataProtect / Protection storage / Available capacity / A': [
    [`{${S1}, tier="active"}`, 988_000],
    [`{${S1}, tier="cloud"}`, 400_000],
  ],
  'DataProtect / Protection storage / Active storage alerts / A': [['{target="dd-a", system_id="s1", severity="WARNING", class="Capacity"}', 2]],
  'DataProtect / Protection storage / Replication lag / A': [['{target="dd-a", system_id="s1", context="ctx-1"}', 120]],
  'DataProtect / Protection storage / Replication contexts / A': [['{target="dd-a", system_id="s1", context="ctx-1", state="NORMAL"}', 1]],

  'DataProtect / Replication / Clusters connected / A': [['{}', 1]],
  'DataProtect / Replication / Clusters disconnected / A': [['{}', 1]],
  'DataProtect / Replication / Protected VMs / A': [['{}', 3]],
  'DataProtect / Replication / VMs paused / A': [['{}', 1]],
  'DataProtect / Replication / Replication clusters / A': [
    ['{target="rp-a", rep_cluster="c1"}', 1],
    ['{target="rp-a", rep_cluster="c2"}', 0],
  ],
  'DataProtect / Replication / VMs by status and role / A': [
    ['{role="production", status="ACTIVE"}', 2],
    ['{role="production", status="PAUSED"}', 1],
  ],
  'DataProtect / Replication / VMs by replication cluster and status / A': [
    ['{rep_cluster="c1", status="ACTIVE"}', 1],
    ['{rep_cluster="c1", status="PAUSED"}', 1],
    ['{rep_cluster="c2", status="ACTIVE"}', 1],
  ],
  'DataProtect / Replication / Replicated disk size per cluster / A': [
    ['{rep_cluster="c1"}', 300],
    ['{rep_cluster="c2"}', 400],
  ],
  'DataProtect / Replication / Paused VMs / A': [
    ['{target="rp-a", vm_id="v1", vm_name="vm-v1", group="cg-1", rep_cluster="c1", role="production", status="PAUSED"}', 1],
  ],
};

/** Queries about the exporters, not the estate: each exporter's own requests, runs and build. */
const PER_EXPORTER: Readonly<Record<string, string>> = {
  'DataProtect / Exporter health / API requests / A': 'requests each exporter makes',
  'DataProtect / Exporter health / Exporter version / A': 'exporters per version',
  'DataProtect / Exporter health / Collector duration / A': 'the wall time of each exporter’s own runs',
  'DataProtect / Exporter health / Collector failures / A': 'runs of each exporter that failed',
  'DataProtect / Exporter health / API request rate by endpoint / A': 'requests each exporter makes',
  'DataProtect / Exporter health / API latency p95 by endpoint / A': 'latency of the requests each exporter makes',
  'DataProtect / Exporter health / API errors by endpoint and code / A': 'requests each exporter makes',
  'DataProtect / Exporter health / API mean latency by endpoint / A': 'latency of the requests each exporter makes',
  'DataProtect / Exporter health / Exporter instances / A': 'one row per exporter',
};

/** Every rule group of alerts/, recordings first, as the promtool tests of test/rules order them. */
function groupEvalOrder(): string[] {
  const groups = ruleFiles().flatMap((file) => loadGroups(file));
  const recording = (group: (typeof groups)[number]) => group.rules.every((rule) => 'record' in rule);
  return [...groups.filter(recording), ...groups.filter((group) => !recording(group))].map((group) => group.name);
}

/** A promtool unit-test file evaluating the queries (id and expression) in the given world, as Grafana sends them with All targets. */
function unitTest(world: World, queries: ReadonlyArray<readonly [id: string, expr: string]>): string {
  return stringify({
    rule_files: ruleFiles(),
    evaluation_interval: '1m',
    group_eval_order: groupEvalOrder(),
    tests: [
      {
        name: `dashboards, ${world} world`,
        interval: '1m',
        input_series: inputSeries(world),
        promql_expr_test: queries.map(([id, expr]) => ({
          expr: substituteVariables(expr),
          eval_time: EVAL_TIME,
          exp_samples: (EXPECTED[id] ?? []).map(([labels, value]) => ({ labels, value })),
        })),
      },
    ],
  });
}

describe('dashboard queries while two exporters serve one target', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dashboard-duplicates-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(world: World, queries: ReadonlyArray<readonly [id: string, expr: string]>, name: string) {
    writeFileSync(path.join(dir, name), unitTest(world, queries));
    return testRules([name], dir);
  }

  const ESTATE_QUERIES = QUERIES.filter((query) => !(queryId(query) in PER_EXPORTER)).map((query) => [queryId(query), query.expr] as const);

  it('covers every query of every dashboard: its expected figures, or why it is about the exporters', () => {
    const ids = QUERIES.map(queryId);
    expect(ids.filter((id) => !(id in EXPECTED) && !(id in PER_EXPORTER))).toEqual([]);
    expect([...Object.keys(EXPECTED), ...Object.keys(PER_EXPORTER)].filter((id) => !ids.includes(id))).toEqual([]);
  });

  it.concurrent.each(Object.keys(WORLDS) as World[])('every panel shows the estate as it is, %s world', async (world) => {
    const result = await run(world, ESTATE_QUERIES, `${world}.test.yml`);
    expect(result.output).not.toContain('FAILED');
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  // The check can fail, both ways, with the queries as they were before the joins
  // and counts were reduced: they pass in the single world and not in the other.
  const BEFORE: ReadonlyArray<readonly [id: string, expr: string, error: RegExp]> = [
    [
      'DataProtect / Protection storage / Used share per system / A',
      'sort_desc(target_system_tier:dataprotect_storage_physical_used:ratio{target=~"$target", tier=~"$tier"} * on(target, system_id) group_left(system_name) dataprotect_storage_system_info{target=~"$target"})',
      /many-to-many matching not allowed/,
    ],
    ['DataProtect / Replication / Protected VMs / A', 'sum(dataprotect_replication_vms{target=~"$target"})', /got: \{\} 6E\+00/],
  ];
  it.concurrent.each(BEFORE)('before the change, %s failed with two exporters', async (id, expr, error) => {
    const name = id.replace(/[^A-Za-z0-9]+/g, '-');
    // with one, the same figures (and the exporter's labels, which the panels hide)
    const single = await run('single', [[id, expr]], `before-single-${name}.test.yml`);
    expect(single.output).not.toMatch(error);
    const duplicated = await run('duplicated', [[id, expr]], `before-duplicated-${name}.test.yml`);
    expect(duplicated.output).toContain('FAILED');
    expect(duplicated.output).toMatch(error);
  });
});
