/**
 * Every metric family: the source of the exposition's HELP/TYPE lines, the label checks and docs/metrics.md. A public contract that
 * dashboards, rules and queries depend on: add families; never rename or relabel one (test/docs/public-metrics.ts).
 */
export type MetricType = 'gauge' | 'counter' | 'histogram';

export interface MetricFamily {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labels: readonly string[];
}

/** The labels every family of a subject shares. */
const ASSET = ['target', 'asset_id', 'asset_name', 'asset_type', 'policy'] as const;
const ACTIVITY = ['target', 'class_type', 'category'] as const;

/** The exporter's own families (its status series and self-metrics, src/exporters): no collector emits them. */
const exporterFamilies = [
  { name: 'dataprotect_up', type: 'gauge', labels: ['target', 'kind'],
    help: '0 once a run could not reach the target (network, time limit, login, 5xx) and none has reached it since; else 1.' },
  { name: 'dataprotect_collector_success', type: 'gauge', labels: ['target', 'collector'],
    help: "1 when the collector's last run succeeded." },
  { name: 'dataprotect_collector_duration_seconds', type: 'gauge', labels: ['target', 'collector'],
    help: 'Wall time of the last run of the collector.' },
  { name: 'dataprotect_collector_last_success_timestamp_seconds', type: 'gauge', labels: ['target', 'collector'],
    help: 'End of the last successful run of the collector.' },
  { name: 'dataprotect_collector_schedule_interval_seconds', type: 'gauge', labels: ['target', 'collector'],
    help: "Longest gap between two runs of the collector's cron schedule, to judge staleness." },
  { name: 'dataprotect_collector_runs_total', type: 'counter', labels: ['target', 'collector'], help: 'Collector runs started.' },
  { name: 'dataprotect_collector_failures_total', type: 'counter', labels: ['target', 'collector'], help: 'Collector runs that failed.' },
  { name: 'dataprotect_collector_skipped_runs_total', type: 'counter', labels: ['target', 'collector'],
    help: 'Scheduled runs skipped: the previous run was still going, or the collection thread was busy past the run\'s time ' +
      '(over a minute, or until the next run).' },
  { name: 'dataprotect_collector_skipped_items_total', type: 'counter', labels: ['target', 'collector', 'reason'],
    help: 'Listing items left out because they fail their checks (reason: missing_field, wrong_type, invalid_value), counted in every ' +
      'run that reads them. A skipped item is in no series and no total: a skipped asset is not counted in dataprotect_assets. The ' +
      'series appears at the first skip.' },
  { name: 'dataprotect_api_requests_total', type: 'counter', labels: ['target', 'endpoint', 'code'],
    help: 'HTTP requests made to the source, by path template and status code (or error).' },
  { name: 'dataprotect_api_request_duration_seconds', type: 'histogram', labels: ['target', 'endpoint'],
    help: 'Latency of HTTP requests made to the source.' },
  { name: 'dataprotect_otlp_dropped_total', type: 'counter', labels: ['signal'],
    help: "The estate's events (activity spans: traces, audit records: logs) not delivered to the OTLP endpoint: queue full, endpoint " +
      "failing or not answering, or still queued at shutdown or when the collection thread ended unasked." },
  { name: 'dataprotect_exporter_build_info', type: 'gauge', labels: ['version', 'nodejs_version'],
    help: 'Build information of the exporter; value 1.' },
  { name: 'dataprotect_exporter_first_round_complete', type: 'gauge', labels: [],
    help: '1 once every enabled collector of every target has finished a first run (successful or not) since the start or the reload ' +
      'that added it.' },
  { name: 'dataprotect_exporter_collection_restarts_total', type: 'counter', labels: ['reason'],
    help: 'Restarts of the collection thread after it ended unasked: out_of_memory (collection.heapLimit reached), crash or exit.' },
  { name: 'dataprotect_config_last_reload_successful', type: 'gauge', labels: [],
    help: '1 when the last configuration load (start or reload) was applied, 0 when it was rejected.' },
  { name: 'dataprotect_config_last_reload_success_timestamp_seconds', type: 'gauge', labels: [],
    help: 'Time of the last configuration load (start or reload) that was applied.' },
] as const satisfies readonly MetricFamily[];

const families = [
  ...exporterFamilies,

  // Management service
  { name: 'dataprotect_asset_info', type: 'gauge', labels: [...ASSET, 'protection_status'],
    help: 'One per asset that is not deleted; value 1.' },
  { name: 'dataprotect_asset_last_copy_timestamp_seconds', type: 'gauge', labels: ASSET,
    help: "Time of the asset's newest live copy (lastAvailableCopyTime, or the newest createTime latest-copies names, copies in a " +
      "deletion state left out); absent for an asset with no copy (dataprotect_asset_without_copy says which), or whose latest-copies " +
      'item was unreadable (a skipped item) or names a newest copy over 10 minutes later than the exporter\'s clock (logged; a ' +
      'lastAvailableCopyTime that far ahead is not taken either).' },
  { name: 'dataprotect_asset_without_copy', type: 'gauge', labels: ASSET,
    help: 'One per asset known to have no copy at all; value 1. Absent for an asset with a copy, and for one whose latest-copies ' +
      'item was unreadable: its newest copy is unknown, and it is neither without copy nor within or out of its RPO.' },
  { name: 'dataprotect_asset_rpo_seconds', type: 'gauge', labels: ASSET,
    help: "Recovery point objective of the protected asset: its policy's, as in dataprotect_policy_rpo_seconds." },
  { name: 'dataprotect_asset_size_bytes', type: 'gauge', labels: ASSET, help: 'Size of the asset.' },
  { name: 'dataprotect_asset_copies', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'location'],
    help: 'Number of live copies the asset has, per location; excludes copies in a deletion state (DELETED, SOFT_DELETED, DELETING, ' +
      'DELETE_FAILED, CATALOG_DELETE_FAILED) and copies past their retention time.' },
  { name: 'dataprotect_asset_copies_size_bytes', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'location'],
    help: "Total size of the asset's live copies, per location; the same copies as dataprotect_asset_copies." },
  { name: 'dataprotect_asset_stage_latest_copy_timestamp_seconds', type: 'gauge',
    labels: ['target', 'asset_id', 'asset_name', 'stage_type'],
    help: 'Newest copy per policy stage type, from copy-metrics. copy-metrics pages at random and takes no filter, so only its first ' +
      '10,000 rows can be read: in a larger estate the assets past that row have no series here (a warning is logged), not a stale or ' +
      'guessed one.' },
  { name: 'dataprotect_assets', type: 'gauge', labels: ['target', 'asset_type', 'protection_status'],
    help: 'Count of assets that are not deleted.' },
  { name: 'dataprotect_assets_without_copy', type: 'gauge', labels: ['target', 'asset_type', 'protection_status'],
    help: 'Count of assets with no copy at all (an asset whose latest-copies item was unreadable is not counted).' },
  { name: 'dataprotect_assets_copy_time_lagging', type: 'gauge', labels: ['target'],
    help: "Assets whose lastAvailableCopyTime is missing or older than their newest copy (the service's own index lags); their newest " +
      "copy time comes from latest-copies." },
  { name: 'dataprotect_activities_completed_total', type: 'counter', labels: [...ACTIVITY, 'result'],
    help: 'Activities that reached COMPLETED since the exporter started, by result status; each counted once. A policy run is one ' +
      'JOB_GROUP plus one JOB per asset in the same category: select one class_type (JOB counts assets, JOB_GROUP runs), never sum ' +
      'across them.' },
  { name: 'dataprotect_activities_window', type: 'gauge', labels: [...ACTIVITY, 'result'],
    help: 'Activities completed within the trailing window, by result status; select one class_type (JOB_GROUP and JOB count the same ' +
      'runs).' },
  { name: 'dataprotect_activities', type: 'gauge', labels: [...ACTIVITY, 'state'],
    help: 'Activities now QUEUED, RUNNING or PENDING_CANCELLATION; select one class_type (a running JOB_GROUP holds running JOBs).' },
  { name: 'dataprotect_activity_duration_seconds', type: 'histogram', labels: ACTIVITY,
    help: 'Duration of activities completed since the exporter started, by class_type (a JOB_GROUP spans its JOBs).' },
  { name: 'dataprotect_activity_transferred_bytes_total', type: 'counter', labels: ACTIVITY,
    help: 'Bytes transferred by activities completed since the exporter started (stats.bytesTransferred, else result.bytesTransferred); ' +
      'a JOB_GROUP reports its JOBs\' bytes again: select one class_type.' },
  { name: 'dataprotect_audit_events_total', type: 'counter', labels: ['target', 'audit_type'],
    help: 'Audit log entries that appeared since the exporter started; each counted once.' },
  { name: 'dataprotect_audit_events_window', type: 'gauge', labels: ['target', 'audit_type'],
    help: 'Audit log entries whose changedTime falls within the trailing window.' },
  { name: 'dataprotect_policy_info', type: 'gauge', labels: ['target', 'policy_id', 'policy', 'policy_type', 'enabled'],
    help: 'One per protection policy; value 1.' },
  { name: 'dataprotect_policy_assets', type: 'gauge', labels: ['target', 'policy'], help: 'Assets in the protection policy.' },
  { name: 'dataprotect_policy_rpo_seconds', type: 'gauge', labels: ['target', 'policy_id', 'policy', 'source'],
    help: 'Recovery point objective of the protection policy; source: config (rpoByPolicy), schedule (its PROTECTION schedule: longest ' +
      'gap between runs plus backup window or rpoGrace) or default (defaultRpo). Not for EXCLUDED policies.' },
  { name: 'dataprotect_compliance_objectives', type: 'gauge', labels: ['target', 'policy', 'status'],
    help: 'Compliance by verified objective status (SUCCEEDED, FAILED, SKIPPED): the latest verification run of each asset and policy ' +
      'stage counts once; earlier runs are not counted, nor the runs (history) of an asset since deleted or moved to another policy.' },
  { name: 'dataprotect_inventory_source_discovery_success', type: 'gauge', labels: ['target', 'source'],
    help: "1 when the inventory source's last discovery result is OK, 0 otherwise; absent for a source without a discovery result " +
      "(application hosts, storage systems, groups often have none)." },
  { name: 'dataprotect_inventory_source_last_discovery_timestamp_seconds', type: 'gauge', labels: ['target', 'source'],
    help: 'Time of the last discovery of the inventory source.' },
  { name: 'dataprotect_cloud_dr_sessions', type: 'gauge', labels: ['target', 'dr_type', 'status'],
    help: 'Cloud disaster-recovery sessions, every page of the listing (needs the Administrator or Restore Administrator role).' },
  { name: 'dataprotect_alerts', type: 'gauge', labels: ['target', 'severity', 'acknowledged'],
    help: "The management service's own open alerts." },

  // Replication plugin
  { name: 'dataprotect_replication_cluster_connected', type: 'gauge', labels: ['target', 'rep_cluster'],
    help: '1 when the replication cluster is registered and its connectionStatus is OK; clusters of one name (in different ' +
      'replication systems) share a series, 1 only while all of them are.' },
  { name: 'dataprotect_replication_vm_info', type: 'gauge',
    labels: ['target', 'vm_id', 'vm_name', 'group', 'rep_cluster', 'role', 'guest_os'],
    help: 'One per protected VM; value 1.' },
  { name: 'dataprotect_replication_vm_status', type: 'gauge',
    labels: ['target', 'vm_id', 'vm_name', 'group', 'rep_cluster', 'role', 'status'],
    help: 'State set of the VM replication status: one series per known status (ACTIVE, PAUSED) and for an unknown current one; 1 for ' +
      'the current status.' },
  { name: 'dataprotect_replication_vm_disk_bytes', type: 'gauge', labels: ['target', 'vm_id', 'vm_name', 'included'],
    help: "Size of the VM's disks, replicated (included=true) or excluded." },
  { name: 'dataprotect_replication_vms', type: 'gauge', labels: ['target', 'rep_cluster', 'role', 'status'],
    help: 'Count of protected VMs.' },
  { name: 'dataprotect_replication_group_info', type: 'gauge', labels: ['target', 'group'], help: 'One per consistency group; value 1.' },

  // Storage appliance / management center
  { name: 'dataprotect_storage_system_info', type: 'gauge', labels: ['target', 'system_id', 'system_name', 'model', 'version'],
    help: 'One per storage system; value 1.' },
  { name: 'dataprotect_storage_physical_capacity_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'],
    help: 'Total physical capacity of the tier (active, cloud); a tier the system does not have has no series.' },
  { name: 'dataprotect_storage_physical_used_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'],
    help: 'Used physical capacity of the tier.' },
  { name: 'dataprotect_storage_physical_available_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'],
    help: 'Available physical capacity of the tier.' },
  { name: 'dataprotect_storage_logical_used_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'],
    help: 'Pre-compression data stored in the tier.' },
  { name: 'dataprotect_storage_compression_factor', type: 'gauge', labels: ['target', 'system_id', 'tier'],
    help: 'Compression factor of the tier: the appliance\'s own, else logical used divided by physical used.' },
  { name: 'dataprotect_storage_alerts', type: 'gauge', labels: ['target', 'system_id', 'severity', 'class'],
    help: 'Active alerts of the storage system.' },
  { name: 'dataprotect_storage_replication_lag_seconds', type: 'gauge', labels: ['target', 'system_id', 'context'],
    help: 'Now minus syncEpoch, per replication context; absent for a context never synchronised (no or zero syncEpoch). A context whose ' +
      'syncEpoch is over 10 minutes ahead of the exporter\'s clock (no past instant in seconds) is a skipped item.' },
  { name: 'dataprotect_storage_system_collector_success', type: 'gauge', labels: ['target', 'system_id', 'collector'],
    help: "1 when the collector's last successful run read this storage system (a management center's other systems are still " +
      "collected when one fails; when all fail the run fails, and dataprotect_collector_success says so)." },
  { name: 'dataprotect_storage_replication_state', type: 'gauge', labels: ['target', 'system_id', 'context', 'state'],
    help: 'State set of replication contexts; 1 for the current state.' },
] as const satisfies readonly MetricFamily[];

export type MetricName = (typeof families)[number]['name'];

export const METRIC_FAMILIES: readonly MetricFamily[] = families;
export const EXPORTER_FAMILIES: readonly MetricFamily[] = exporterFamilies;

const byName = new Map<string, MetricFamily>(families.map((family) => [family.name, family]));

export function metricFamily(name: string): MetricFamily {
  const family = byName.get(name);
  if (!family) throw new Error(`metric ${name} is not in src/metrics/catalog.ts`);
  return family;
}

/** Bucket bounds (seconds) of dataprotect_activity_duration_seconds: backups take minutes to hours. */
export const ACTIVITY_DURATION_BUCKETS = [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800, 86400] as const;
