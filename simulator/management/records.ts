/**
 * The estate's internal records. Big collections (copies, activities) are
 * kept compact, with times as epoch ms, and rendered to API shapes only when
 * served; audit entries before the start are not stored at all (see audit.ts).
 */
import type { EstateSize } from '../types';
import type { SimulatedClock } from '../core/clock';
import type { SeededRandom } from '../core/random';
import type { AuditStore } from './audit';
import type { HourlyFeed } from './feed';
import type {
  ActivityClassType,
  ActivityResultStatus,
  Alert,
  Asset,
  CloudDrSession,
  CopyLocation,
  InventorySource,
  ProtectionPolicy,
  StageType,
  StorageSystem,
} from './shapes';

export interface PolicyRecord {
  /** the policy as served, without its summary (derived when served) */
  api: Omit<ProtectionPolicy, 'summary'>;
  /** PROTECTION schedule period; 0 for a policy that makes no copies */
  periodMs: number;
  /** an instant the schedule runs at; every asset's backups are this plus its phase plus whole periods */
  anchorMs: number;
  /** the schedule's window: assets' backups spread over it */
  windowMs: number;
  /** the RPO the PROTECTION stage's schedule implies (period plus window); null when the stage shows none an exporter can read */
  scheduleRpoMs: number | null;
  retentionMs: Partial<Record<StageType, number>>;
  stageIds: Partial<Record<StageType, string>>;
  /** PROTECTION copies move to the cloud tier this long after creation; 0 without a CLOUD_TIER stage */
  tierAfterMs: number;
  protectionStorageId: string;
  replicationStorageId: string;
  /** PROTECT job groups of this policy in creation order (for the summary) */
  groups: ActivityRecord[];
}

export interface AssetRecord {
  api: Asset;
  /** position at creation, used to derive this asset's own random streams */
  ordinal: number;
  createdMs: number;
  /** what lastAvailableCopyTime says (kept in step with api.lastAvailableCopyTime) */
  lastCopyMs: number | null;
  /** when true, new copies no longer move lastAvailableCopyTime (the server lags behind) */
  pinned: boolean;
  policy: PolicyRecord | null;
  /** ascending createMs; live copies only */
  copies: CopyRecord[];
  /** copies in a deletion state, listed beside the live ones (ascending createMs; see deleted-copies.ts) */
  deletedCopies?: CopyRecord[];
  /** the smallest retentionMs among copies (Infinity when none): lets the expiry skip most assets */
  minRetentionMs: number;
  /** offset of this asset's backups inside its policy's schedule window */
  phaseMs: number;
  /** next scheduled backup; Infinity when the asset gets no new copies */
  nextBackupMs: number;
}

export interface CopyRecord {
  id: string;
  asset: AssetRecord;
  createMs: number;
  retentionMs: number;
  size: number;
  copyType: string;
  /** where the copy was written; a LOCAL copy with tierAtMs moves to CLOUD at that time */
  location: CopyLocation;
  tierAtMs: number;
  replicated: boolean;
  adhoc: boolean;
  storageSystemId: string;
  policy: PolicyRecord | null;
  hotAdd: boolean;
  /** a deletion state (DELETED, SOFT_DELETED, DELETING, DELETE_FAILED, CATALOG_DELETE_FAILED); absent on a live copy */
  state?: string;
}

export interface ActivityRef {
  id: string;
  name: string;
  type: string;
}

export interface ActivityRecord {
  id: string;
  name: string;
  parentId: string | null;
  category: string;
  subcategory: string;
  classType: ActivityClassType;
  createMs: number;
  /** planned start; Infinity keeps it QUEUED */
  startMs: number;
  /** planned end; Infinity keeps it RUNNING */
  endMs: number;
  /** cancellation request time (PENDING_CANCELLATION until endMs); Infinity when never canceled */
  cancelMs: number;
  /** result once COMPLETED */
  status: ActivityResultStatus;
  bytes: number;
  preCompBytes: number;
  asset: ActivityRef | null;
  policy: ActivityRef | null;
  /** index into ACTIVITY_ERRORS for FAILED / OK_WITH_ERRORS, else -1 */
  errorIndex: number;
  /** JOB_GROUP only: jobs that ended FAILED */
  failedJobs: number;
}

export interface InventorySourceRecord {
  api: InventorySource;
  /** discovery runs every periodMs at phaseMs; lastDiscovered follows the clock */
  periodMs: number;
  phaseMs: number;
  /** set by tests: a fixed lastDiscovered instead of the periodic one */
  fixedDiscoveredMs?: number;
}

export interface EstateState {
  clock: SimulatedClock;
  size: EstateSize;
  startMs: number;
  /** the management fork; only used for fork(label), so draws never depend on call order */
  random: SeededRandom;
  policies: PolicyRecord[];
  /** natural order: ascending createdMs */
  assets: AssetRecord[];
  assetById: Map<string, AssetRecord>;
  copyById: Map<string, CopyRecord>;
  /** ascending createMs, only activities created up to now */
  activities: ActivityRecord[];
  activityById: Map<string, ActivityRecord>;
  /** the longest time from an activity's creation to its last state change so far (bounds time-range scans) */
  maxActivitySpanMs: number;
  /** hands out the activities of each hour as the clock passes their createMs */
  activityFeed: HourlyFeed<ActivityRecord>;
  audit: AuditStore;
  /** times of the audit entries of each hour as the clock passes them */
  auditFeed: HourlyFeed<number>;
  inventorySources: InventorySourceRecord[];
  storageSystems: StorageSystem[];
  cloudDrSessions: CloudDrSession[];
  /** ascending postedTime */
  alerts: Alert[];
  /** bumped by every change that is not a pure function of the clock */
  version: number;
  /** bumped when the asset list or an asset's protection changes (activity generation caches on it) */
  assetsVersion: number;
}
