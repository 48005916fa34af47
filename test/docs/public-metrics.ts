/**
 * The metric names, types and labels that dashboards, alert rules and users'
 * own queries depend on: the exporter's public interface since its first
 * release. The catalog (src/metrics/catalog.ts) may add families; these it
 * must keep exactly, so that no user's query breaks on an upgrade.
 */
import type { MetricType } from '../../src/metrics/catalog';

export interface PublicMetric {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
}

export const PUBLIC_METRICS: readonly PublicMetric[] = [
  { name: 'dataprotect_up', type: 'gauge', labels: ['target', 'kind'] },
  { name: 'dataprotect_collector_success', type: 'gauge', labels: ['target', 'collector'] },
  { name: 'dataprotect_collector_duration_seconds', type: 'gauge', labels: ['target', 'collector'] },
  { name: 'dataprotect_collector_last_success_timestamp_seconds', type: 'gauge', labels: ['target', 'collector'] },
  { name: 'dataprotect_collector_runs_total', type: 'counter', labels: ['target', 'collector'] },
  { name: 'dataprotect_collector_failures_total', type: 'counter', labels: ['target', 'collector'] },
  { name: 'dataprotect_api_requests_total', type: 'counter', labels: ['target', 'endpoint', 'code'] },
  { name: 'dataprotect_api_request_duration_seconds', type: 'histogram', labels: ['target', 'endpoint'] },
  { name: 'dataprotect_exporter_build_info', type: 'gauge', labels: ['version', 'nodejs_version'] },
  { name: 'dataprotect_asset_info', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'asset_type', 'policy', 'protection_status'] },
  { name: 'dataprotect_asset_last_copy_timestamp_seconds', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'asset_type', 'policy'] },
  { name: 'dataprotect_asset_rpo_seconds', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'asset_type', 'policy'] },
  { name: 'dataprotect_asset_size_bytes', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'asset_type', 'policy'] },
  { name: 'dataprotect_asset_copies', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'location'] },
  { name: 'dataprotect_asset_copies_size_bytes', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'location'] },
  { name: 'dataprotect_asset_stage_latest_copy_timestamp_seconds', type: 'gauge', labels: ['target', 'asset_id', 'asset_name', 'stage_type'] },
  { name: 'dataprotect_assets', type: 'gauge', labels: ['target', 'asset_type', 'protection_status'] },
  { name: 'dataprotect_assets_without_copy', type: 'gauge', labels: ['target', 'asset_type', 'protection_status'] },
  // class_type keeps a policy run's JOB_GROUP and its JOBs apart (one run, counted at two levels).
  { name: 'dataprotect_activities_completed_total', type: 'counter', labels: ['target', 'class_type', 'category', 'result'] },
  { name: 'dataprotect_activities_window', type: 'gauge', labels: ['target', 'class_type', 'category', 'result'] },
  { name: 'dataprotect_activities', type: 'gauge', labels: ['target', 'class_type', 'category', 'state'] },
  { name: 'dataprotect_activity_duration_seconds', type: 'histogram', labels: ['target', 'class_type', 'category'] },
  { name: 'dataprotect_activity_transferred_bytes_total', type: 'counter', labels: ['target', 'class_type', 'category'] },
  { name: 'dataprotect_audit_events_total', type: 'counter', labels: ['target', 'audit_type'] },
  { name: 'dataprotect_audit_events_window', type: 'gauge', labels: ['target', 'audit_type'] },
  { name: 'dataprotect_policy_info', type: 'gauge', labels: ['target', 'policy_id', 'policy', 'policy_type', 'enabled'] },
  { name: 'dataprotect_policy_assets', type: 'gauge', labels: ['target', 'policy'] },
  { name: 'dataprotect_compliance_objectives', type: 'gauge', labels: ['target', 'policy', 'status'] },
  { name: 'dataprotect_inventory_source_discovery_success', type: 'gauge', labels: ['target', 'source'] },
  { name: 'dataprotect_inventory_source_last_discovery_timestamp_seconds', type: 'gauge', labels: ['target', 'source'] },
  { name: 'dataprotect_cloud_dr_sessions', type: 'gauge', labels: ['target', 'dr_type', 'status'] },
  { name: 'dataprotect_alerts', type: 'gauge', labels: ['target', 'severity', 'acknowledged'] },
  { name: 'dataprotect_replication_cluster_connected', type: 'gauge', labels: ['target', 'rep_cluster'] },
  { name: 'dataprotect_replication_vm_info', type: 'gauge', labels: ['target', 'vm_id', 'vm_name', 'group', 'rep_cluster', 'role', 'guest_os'] },
  { name: 'dataprotect_replication_vm_status', type: 'gauge', labels: ['target', 'vm_id', 'vm_name', 'group', 'rep_cluster', 'role', 'status'] },
  { name: 'dataprotect_replication_vm_disk_bytes', type: 'gauge', labels: ['target', 'vm_id', 'vm_name', 'included'] },
  { name: 'dataprotect_replication_vms', type: 'gauge', labels: ['target', 'rep_cluster', 'role', 'status'] },
  { name: 'dataprotect_replication_group_info', type: 'gauge', labels: ['target', 'group'] },
  { name: 'dataprotect_storage_system_info', type: 'gauge', labels: ['target', 'system_id', 'system_name', 'model', 'version'] },
  { name: 'dataprotect_storage_physical_capacity_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'] },
  { name: 'dataprotect_storage_physical_used_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'] },
  { name: 'dataprotect_storage_physical_available_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'] },
  { name: 'dataprotect_storage_logical_used_bytes', type: 'gauge', labels: ['target', 'system_id', 'tier'] },
  { name: 'dataprotect_storage_compression_factor', type: 'gauge', labels: ['target', 'system_id', 'tier'] },
  { name: 'dataprotect_storage_alerts', type: 'gauge', labels: ['target', 'system_id', 'severity', 'class'] },
  { name: 'dataprotect_storage_replication_lag_seconds', type: 'gauge', labels: ['target', 'system_id', 'context'] },
  { name: 'dataprotect_storage_replication_state', type: 'gauge', labels: ['target', 'system_id', 'context', 'state'] },
];
