/**
 * JSON shapes the management service (/api/v2) answers with, in the seed's
 * spelling (seeds/management-service-api-v2.md, api-notes.md). The truth
 * accessors of ManagementEstate return these same shapes.
 */

export type ProtectionStatus = 'PROTECTED' | 'UNPROTECTED' | 'EXCLUDED';
export type CopyLocation = 'LOCAL' | 'CLOUD' | 'LOCAL_RECALLED' | 'STORAGEARRAY';
export type StageType = 'PROTECTION' | 'REPLICATION' | 'CLOUD_TIER';
export type ActivityClassType = 'JOB_GROUP' | 'JOB' | 'TASK';
export type ActivityState = 'QUEUED' | 'RUNNING' | 'PENDING_CANCELLATION' | 'COMPLETED';
export type ActivityResultStatus = 'OK' | 'OK_WITH_ERRORS' | 'FAILED' | 'CANCELED' | 'UNKNOWN' | 'SKIPPED';
export type ComplianceStatus = 'SUCCEEDED' | 'FAILED' | 'SKIPPED';
export type AlertSeverity = 'CRITICAL' | 'WARNING' | 'INFORMATIONAL';

export interface VmDisk {
  name: string;
  sizeInBytes: number;
  label: string;
  key: number;
  thinProvisioned: boolean;
  excluded: boolean;
}

export interface VmDetails {
  guestOS: string;
  datacenter: string;
  resourcePool: string;
  hostName: string;
  folder: string;
  primaryIpAddress: string;
  vmBiosUuid: string;
  dnsName: string;
  hvMgrName: string;
  inventorySourceName: string;
  hvName: string;
  clusterName: string;
  protectedApplication: string;
  externalId: string;
  disks: VmDisk[];
  datastore: { datastoreMoref: string; datastoreName: string }[];
}

export interface PolicyRef {
  id: string;
  name: string;
  type: string;
  protectionEngine: string;
}

export interface Asset {
  id: string;
  name: string;
  type: string;
  userTags: string[] | null;
  dataTargetIds: string[] | null;
  assetGroupId: string | null;
  credentialId: string | null;
  ruleId: string | null;
  ruleName: string | null;
  protectionLifeCycleId: string | null;
  protectionPolicyId: string | null;
  protectionStatus: ProtectionStatus;
  deleted: boolean;
  protectable: boolean;
  size: number;
  lastAvailableCopyTime: string | null;
  createdAt: string;
  updatedAt: string;
  details: { vm?: VmDetails };
  /** the products' top-level copy of the policy (present without `expand`) */
  protectionPolicy: { id: string; name: string; type: string } | null;
  _embedded: { protectionPolicy: PolicyRef | null };
}

export interface CopyDisk {
  excluded: boolean;
  capacityInBytes: number;
  controller: number;
  backupIndex: number;
  provisioningType: string;
  controllerType: string;
  unitNumber: number;
  label: string;
  key: number;
}

export interface Copy {
  id: string;
  createTime: string;
  storageSystemId: string;
  /** optional in the model: a few copies leave it out (core/sparse.ts) */
  size?: number;
  state: string | null;
  protectionCreated: boolean;
  replicatedCopy: boolean;
  adhocBackup: boolean;
  partialCopy: boolean;
  copyType: string;
  copyConsistency: string;
  retentionLock: string;
  retentionTime: string;
  retierTime: string | null;
  partialCopyDescription: string | null;
  baseCopyId: string | null;
  exportedCopyCount: number | null;
  externalId: string | null;
  restoreTargetCompatibilities: string[] | null;
  logCount: string;
  /** optional in the model: a few copies leave it out (core/sparse.ts) */
  location?: CopyLocation;
  details: {
    arraySubType: string;
    arraySerialNo: string;
    storageClass: string;
    vmBackup?: {
      disks: CopyDisk[];
      backupId: string;
      protectionEngineType: string;
      transportModeUsed: string | null;
      syntheticFull: boolean;
      quiesceStatus: string;
      diskBackupCount: number;
      diskTotalCount: number;
      partialCopy: boolean;
    };
  };
}

/** an item of GET /api/v2/latest-copies */
export type LatestCopy = Copy & { assetId: string };

export interface StageCopyMetrics {
  policyId: string | null;
  stageId: string | null;
  stageType: StageType;
  copyCount: number;
  latestCopyTime: string;
  oldestCopyTime: string;
}

export interface CopyMetrics {
  assetId: string;
  totalNumbers: number;
  centralizedCopyCount: number;
  selfServiceCopyCount: number;
  minCopySize: number;
  maxCopySize: number;
  stageCopyMetrics: StageCopyMetrics[];
}

export interface ActivityError {
  code: string;
  reason: string;
  remediation: string;
}

export interface Activity {
  id: string;
  name: string;
  parentId: string | null;
  category: string;
  subcategory: string;
  classType: ActivityClassType;
  state: ActivityState;
  progress: number;
  createTime: string;
  updateTime: string;
  startTime: string | null;
  endTime: string | null;
  /** milliseconds */
  duration: number;
  result: { status: ActivityResultStatus; bytesTransferred: number; error: ActivityError | null };
  asset: { id: string; name: string; type: string } | null;
  protectionPolicy: { id: string; name: string; type: string } | null;
  stats: {
    preCompBytes: number;
    postCompBytes: number;
    bytesTransferred: number;
    dedupeRatio: number;
    reductionPercentage: number;
  };
}

export interface AuditEntry {
  id: string;
  auditType: string;
  changedTime: string;
  createdAt: string;
  changedBy: { id: string; username: string };
  changedObject: { id: string; resourceName: string; resourceType: string };
  changeDescription: string;
  messageID: string;
}

export interface StageSchedule {
  /** CONTINUOUS: a frequency the exporter does not know (catalog.ts UNKNOWN_FREQUENCY) */
  frequency: 'MINUTELY' | 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY' | 'CONTINUOUS';
  interval: number;
  startTime: string;
  duration: string;
}

export interface PolicyStage {
  id: string;
  type: StageType;
  passive: boolean;
  attributes: Record<string, unknown>;
  target: { storageSystemId: string; dataTargetId: string | null };
  slaId: string | null;
  sourceStageId: string | null;
  operations: { type: string; schedule: StageSchedule | null }[];
  retention: { interval: number; unit: 'DAY'; storageSystemRetentionLock: boolean };
}

export interface ProtectionPolicy {
  id: string;
  name: string;
  description: string;
  type: 'ACTIVE' | 'EXCLUDED';
  enabled: boolean;
  assetType: string;
  protectionEngine: string;
  stages: PolicyStage[];
  filterIds: string[];
  createdAt: string;
  updatedAt: string;
  slaId: string | null;
  summary: {
    numberOfAssets: number;
    lastExecutionStatus: ActivityResultStatus | null;
    numberOfJobFailures: number;
    numberOfSlaFailures: number;
    numberOfSlaSuccess: number;
  };
}

export interface ComplianceDetail {
  assetId: string;
  assetName: string;
  protectionPolicyId: string;
  policyName: string;
  stageId: string;
  /** the run (the product's ComplianceDetail model): its latest by completionTime is the asset's compliance */
  startTime: string;
  completionTime: string;
  createdAt: string;
  /** api-notes' flat field */
  status: ComplianceStatus;
  /** the seed's field (release 19.7): the same result; the product's model lacks it, and so do some records */
  verifiedObjectives?: { status: ComplianceStatus };
  objectiveFailedNameList: string[];
}

export interface InventorySource {
  id: string;
  name: string;
  version: string;
  type: string;
  lastDiscovered: string;
  /** null for sources the service does not discover (application hosts, storage systems, groups often have none) */
  lastDiscoveryResult: { status: string; summaries: string[] } | null;
  lastDiscoveryTaskId: string;
  address: string;
  port: number;
  credentials: { id: string };
  details: {
    customAppGroup: null;
    hvManager: { internal: boolean; hosting: boolean; cloudType: string; hvUiIntegration: boolean };
  };
  local: boolean;
}

export interface CloudDrSession {
  id: string;
  assetName: string;
  /** drType and status are optional in the model: two sessions leave one out */
  drType?: 'Test' | 'Failover';
  region: string;
  status?: string;
  instanceId: string;
  copyTime: string;
}

export interface Alert {
  id: string;
  /** optional in the model (only id is required): the newest alert leaves it out */
  severity?: AlertSeverity;
  category: string;
  message: string;
  postedTime: string;
  acknowledgement: { acknowledgeState: 'ACKNOWLEDGED' | 'UNACKNOWLEDGED' };
}

export interface StorageSystem {
  id: string;
  name: string;
  type: string;
  readiness: 'READY' | 'NOT_READY';
  capacityUtilization: number;
  lastDiscoveryStatus: string;
}
