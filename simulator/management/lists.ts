/**
 * The lists the service serves, each with its filterable fields (dotted paths
 * as in the JSON), natural order and paging modes. Fields of compact records
 * read the records directly; time fields answer epoch ms.
 */
import { omits } from '../core/sparse';
import {
  activityBytes,
  activityDuration,
  activityEndTime,
  activityProgress,
  activityStartTime,
  activityState,
  activityStatus,
  activityUpdateMs,
  renderActivity,
} from './activities';
import type { AuditStore } from './audit';
import { copyLocation, copyMetricsOf, renderCopy } from './copies';
import { listedCopies } from './deleted-copies';
import { objectFields, type FieldKind, type FieldSpecs } from './filter';
import { arraySeq, type ListSource, type Seq } from './paging';
import type { ActivityRecord, AssetRecord, CopyRecord, EstateState } from './records';
import type { Alert, AuditEntry, ComplianceDetail, InventorySource, ProtectionPolicy, StorageSystem } from './shapes';
import { complianceHistory, inventorySourceView, policyView } from './views';

function nowOf(state: EstateState): number {
  return state.clock.now().getTime();
}

function stampOf(state: EstateState): string {
  return `${state.version}@${nowOf(state)}`;
}

/** fields of an object reached through `select` from the listed item */
function via<T, O extends object>(select: (item: T) => O, kinds: Record<string, FieldKind>): FieldSpecs<T> {
  const inner = objectFields<O>(kinds);
  const out: FieldSpecs<T> = {};
  for (const [path, spec] of Object.entries(inner)) {
    if (spec) out[path] = { kind: spec.kind, get: (item) => spec.get(select(item)) };
  }
  return out;
}

const VM_FIELDS = [
  'guestOS',
  'datacenter',
  'resourcePool',
  'hostName',
  'folder',
  'primaryIpAddress',
  'vmBiosUuid',
  'dnsName',
  'hvMgrName',
  'inventorySourceName',
  'hvName',
  'clusterName',
  'protectedApplication',
  'externalId',
];

const ASSET_FIELDS: FieldSpecs<AssetRecord> = (() => {
  const kinds: Record<string, FieldKind> = {
    id: 'string',
    name: 'string',
    type: 'string',
    protectionStatus: 'string',
    protectionPolicyId: 'string',
    protectionLifeCycleId: 'string',
    assetGroupId: 'string',
    credentialId: 'string',
    ruleId: 'string',
    ruleName: 'string',
    deleted: 'boolean',
    protectable: 'boolean',
    size: 'number',
    '_embedded.protectionPolicy.id': 'string',
    '_embedded.protectionPolicy.name': 'string',
    '_embedded.protectionPolicy.type': 'string',
  };
  for (const f of VM_FIELDS) kinds[`details.vm.${f}`] = 'string';
  const fields = via((a: AssetRecord) => a.api, kinds);
  fields.lastAvailableCopyTime = { kind: 'time', get: (a) => a.lastCopyMs };
  fields.createdAt = { kind: 'time', get: (a) => a.createdMs };
  fields.updatedAt = { kind: 'time', get: (a) => Date.parse(a.api.updatedAt) };
  // the service also accepts the policy fields without the _embedded prefix
  for (const f of ['id', 'name', 'type']) fields[`protectionPolicy.${f}`] = fields[`_embedded.protectionPolicy.${f}`] as FieldSpecs<AssetRecord>[string];
  return fields;
})();

export function assetList(state: EstateState): ListSource<AssetRecord> {
  return {
    name: 'assets',
    fields: ASSET_FIELDS,
    sortField: 'createdAt',
    items: (snapshot) => arraySeq(snapshot ? state.assets.slice() : state.assets, (a) => a.createdMs),
    byId: (id) => state.assetById.get(id),
    keyOf: (a) => a.createdMs,
    render: renderAsset,
    stamp: () => stampOf(state),
    paging: 'both',
  };
}

/** An asset as listed: the model leaves lastAvailableCopyTime optional, and some assets without a copy time leave it out. */
function renderAsset(asset: AssetRecord): unknown {
  if (asset.api.lastAvailableCopyTime !== null || !omits(asset.api.id, 'lastAvailableCopyTime', 2)) return asset.api;
  const { lastAvailableCopyTime: _none, ...rest } = asset.api;
  return rest;
}

/** copy fields, for copies lists and the latest-copies filter (location is where the copy is at nowMs) */
export function copyFields(nowMs: number): FieldSpecs<CopyRecord> {
  return {
    id: { kind: 'string', get: (c) => c.id },
    assetId: { kind: 'string', get: (c) => c.asset.api.id },
    createTime: { kind: 'time', get: (c) => c.createMs },
    retentionTime: { kind: 'time', get: (c) => c.retentionMs },
    storageSystemId: { kind: 'string', get: (c) => c.storageSystemId },
    size: { kind: 'number', get: (c) => c.size },
    state: { kind: 'string', get: (c) => c.state ?? null },
    location: { kind: 'string', get: (c) => copyLocation(c, nowMs) },
    copyType: { kind: 'string', get: (c) => c.copyType },
    replicatedCopy: { kind: 'boolean', get: (c) => c.replicated },
    adhocBackup: { kind: 'boolean', get: (c) => c.adhoc },
    protectionCreated: { kind: 'boolean', get: (c) => !c.adhoc },
    partialCopy: { kind: 'boolean', get: () => false },
    retentionLock: { kind: 'string', get: () => 'ALL_COPIES_UNLOCKED' },
  };
}

/** the copies of one asset; newest first unless orderby says otherwise */
export function copyList(state: EstateState, asset: AssetRecord): ListSource<CopyRecord> {
  const nowMs = nowOf(state);
  return {
    name: `copies of ${asset.api.id}`,
    fields: copyFields(nowMs),
    sortField: 'createTime',
    defaultDescending: true,
    items: (snapshot) => {
      const copies = listedCopies(asset);
      return arraySeq(snapshot && copies === asset.copies ? copies.slice() : copies, (c) => c.createMs);
    },
    render: (c) => renderCopy(c, nowMs),
    stamp: () => stampOf(state),
    paging: 'random',
  };
}

/** latest-copies: the newest matching copy of each named asset, in the order the filter names them */
export function latestCopyList(state: EstateState, assetIds: string[], matches: (c: CopyRecord) => boolean): ListSource<CopyRecord> {
  const nowMs = nowOf(state);
  const latest: CopyRecord[] = [];
  const seen = new Set<string>();
  for (const id of assetIds) {
    if (seen.has(id)) continue;
    seen.add(id);
    const asset = state.assetById.get(id);
    const copies = asset ? listedCopies(asset) : [];
    for (let i = copies.length - 1; i >= 0; i--) {
      const c = copies[i] as CopyRecord;
      if (matches(c)) {
        latest.push(c);
        break;
      }
    }
  }
  return {
    name: 'latest-copies',
    fields: {},
    items: () => arraySeq(latest),
    render: (c) => ({ ...renderCopy(c, nowMs), assetId: c.asset.api.id }),
    stamp: () => stampOf(state),
    paging: 'random',
  };
}

export function copyMetricsList(state: EstateState): ListSource<AssetRecord> {
  const nowMs = nowOf(state);
  return {
    name: 'copy-metrics',
    fields: { assetId: { kind: 'string', get: (a) => a.api.id } },
    items: () => arraySeq(state.assets.filter((a) => !a.api.deleted)),
    render: (a) => copyMetricsOf(a, nowMs),
    stamp: () => stampOf(state),
    paging: 'random',
  };
}

function activityFields(nowMs: number): FieldSpecs<ActivityRecord> {
  return {
    id: { kind: 'string', get: (a) => a.id },
    name: { kind: 'string', get: (a) => a.name },
    parentId: { kind: 'string', get: (a) => a.parentId },
    category: { kind: 'string', get: (a) => a.category },
    subcategory: { kind: 'string', get: (a) => a.subcategory },
    classType: { kind: 'string', get: (a) => a.classType },
    state: { kind: 'string', get: (a) => activityState(a, nowMs) },
    progress: { kind: 'number', get: (a) => activityProgress(a, nowMs) },
    createTime: { kind: 'time', get: (a) => a.createMs },
    updateTime: { kind: 'time', get: (a) => activityUpdateMs(a, nowMs) },
    startTime: { kind: 'time', get: (a) => activityStartTime(a, nowMs) },
    endTime: { kind: 'time', get: (a) => activityEndTime(a, nowMs) },
    duration: { kind: 'number', get: (a) => activityDuration(a, nowMs) },
    'result.status': { kind: 'string', get: (a) => activityStatus(a, nowMs) },
    'result.bytesTransferred': { kind: 'number', get: (a) => activityBytes(a, nowMs) },
    'stats.bytesTransferred': { kind: 'number', get: (a) => activityBytes(a, nowMs) },
    'asset.id': { kind: 'string', get: (a) => a.asset?.id ?? null },
    'asset.name': { kind: 'string', get: (a) => a.asset?.name ?? null },
    'asset.type': { kind: 'string', get: (a) => a.asset?.type ?? null },
    'protectionPolicy.id': { kind: 'string', get: (a) => a.policy?.id ?? null },
    'protectionPolicy.name': { kind: 'string', get: (a) => a.policy?.name ?? null },
    'protectionPolicy.type': { kind: 'string', get: (a) => a.policy?.type ?? null },
  };
}

export function activityList(state: EstateState): ListSource<ActivityRecord> {
  const nowMs = nowOf(state);
  return {
    name: 'activities',
    fields: activityFields(nowMs),
    sortField: 'createTime',
    trailingFields: () => ({ startTime: state.maxActivitySpanMs, endTime: state.maxActivitySpanMs, updateTime: state.maxActivitySpanMs }),
    byId: (id) => state.activityById.get(id),
    keyOf: (a) => a.createMs,
    items: (snapshot) => arraySeq(snapshot ? state.activities.slice() : state.activities, (a) => a.createMs),
    render: (a) => renderActivity(a, nowMs),
    stamp: () => stampOf(state),
    paging: 'both',
  };
}

const AUDIT_FIELDS: FieldSpecs<AuditEntry> = objectFields<AuditEntry>({
  id: 'string',
  auditType: 'string',
  changedTime: 'time',
  createdAt: 'time',
  'changedBy.id': 'string',
  'changedBy.username': 'string',
  'changedObject.id': 'string',
  'changedObject.resourceName': 'string',
  'changedObject.resourceType': 'string',
  changeDescription: 'string',
  messageID: 'string',
});

function auditSeq(audit: AuditStore): Seq<AuditEntry> {
  // a fixed length: entries appended while a serial query pages are not part of it
  return { length: audit.length, at: (i) => audit.at(i), keyAt: (i) => audit.timeAt(i) };
}

export function auditList(state: EstateState): ListSource<AuditEntry> {
  return {
    name: 'audit-logs',
    fields: AUDIT_FIELDS,
    sortField: 'changedTime',
    items: () => auditSeq(state.audit),
    render: (e) => e,
    stamp: () => stampOf(state),
    paging: 'serial',
  };
}

const ALERT_FIELDS = objectFields<Alert>({
  id: 'string',
  severity: 'string',
  category: 'string',
  message: 'string',
  postedTime: 'time',
  'acknowledgement.acknowledgeState': 'string',
});

export function alertList(state: EstateState): ListSource<Alert> {
  return {
    name: 'alerts',
    fields: ALERT_FIELDS,
    sortField: 'postedTime',
    items: (snapshot) => arraySeq(snapshot ? state.alerts.slice() : state.alerts, (a) => Date.parse(a.postedTime)),
    render: (a) => a,
    stamp: () => stampOf(state),
    paging: 'both',
  };
}

/** a small list of rendered objects, random paging only */
function plainList<T extends object>(state: EstateState, name: string, kinds: Record<string, FieldKind>, items: () => T[]): ListSource<T> {
  const fields = objectFields<T>(kinds);
  return { name, fields, items: () => arraySeq(items()), render: (x) => x, stamp: () => stampOf(state), paging: 'random' };
}

export function policyList(state: EstateState): ListSource<ProtectionPolicy> {
  return plainList<ProtectionPolicy>(state, 'protection-policies', { id: 'string', name: 'string', type: 'string', enabled: 'boolean', assetType: 'string', createdAt: 'time', updatedAt: 'time' }, () =>
    state.policies.map((p) => policyView(state, p)),
  );
}

export function complianceList(state: EstateState): ListSource<ComplianceDetail> {
  return plainList<ComplianceDetail>(
    state,
    'compliance-details',
    { assetId: 'string', assetName: 'string', protectionPolicyId: 'string', policyName: 'string', stageId: 'string', startTime: 'time', completionTime: 'time', createdAt: 'time', status: 'string' },
    () => complianceHistory(state),
  );
}

export function inventorySourceList(state: EstateState): ListSource<InventorySource> {
  const nowMs = nowOf(state);
  return plainList<InventorySource>(
    state,
    'inventory-sources',
    { id: 'string', name: 'string', type: 'string', version: 'string', address: 'string', port: 'number', lastDiscovered: 'time', 'lastDiscoveryResult.status': 'string', local: 'boolean' },
    () => state.inventorySources.map((s) => inventorySourceView(s, nowMs)),
  );
}

export function storageSystemList(state: EstateState): ListSource<StorageSystem> {
  return plainList<StorageSystem>(
    state,
    'storage-systems',
    { id: 'string', name: 'string', type: 'string', readiness: 'string', capacityUtilization: 'number', lastDiscoveryStatus: 'string' },
    () => state.storageSystems,
  );
}

