/**
 * Fixed vocabularies of the simulated management service: asset types,
 * activity categories, audit types and the words names are built from.
 * Kept apart from the generators so the distributions are easy to read.
 */
import type { ActivityResultStatus, AlertSeverity, StageType } from './shapes';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export interface AssetTypeInfo {
  type: string;
  weight: number;
  /** per-asset size range in GiB */
  sizeGiB: [number, number];
  /** copy types a backup of this asset can be (first one is the usual) */
  copyTypes: string[];
  consistency: string;
  protectionEngine: string;
}

export const ASSET_TYPES: readonly AssetTypeInfo[] = [
  { type: 'HV_VIRTUAL_MACHINE', weight: 60, sizeGiB: [20, 2048], copyTypes: ['FULL'], consistency: 'CRASH_CONSISTENT', protectionEngine: 'VMDIRECT' },
  { type: 'MICROSOFT_SQL_DATABASE', weight: 10, sizeGiB: [1, 800], copyTypes: ['FULL', 'DIFFERENTIAL', 'LOG'], consistency: 'APPLICATION_CONSISTENT', protectionEngine: 'APPDIRECT' },
  { type: 'ORACLE_DATABASE', weight: 6, sizeGiB: [5, 3000], copyTypes: ['FULL', 'INCREMENTAL', 'LOG'], consistency: 'APPLICATION_CONSISTENT', protectionEngine: 'APPDIRECT' },
  { type: 'FILE_SYSTEM', weight: 8, sizeGiB: [10, 4000], copyTypes: ['FULL', 'INCREMENTAL'], consistency: 'CRASH_CONSISTENT', protectionEngine: 'FSAGENT' },
  { type: 'NAS_SHARE', weight: 5, sizeGiB: [50, 8000], copyTypes: ['FULL', 'INCREMENTAL'], consistency: 'CRASH_CONSISTENT', protectionEngine: 'NASDIRECT' },
  { type: 'KUBERNETES', weight: 5, sizeGiB: [1, 500], copyTypes: ['FULL'], consistency: 'CRASH_CONSISTENT', protectionEngine: 'K8SDIRECT' },
  { type: 'POWERSTORE_BLOCK', weight: 3, sizeGiB: [100, 10000], copyTypes: ['FULL', 'INCREMENTAL'], consistency: 'CRASH_CONSISTENT', protectionEngine: 'STORAGEDIRECT' },
  { type: 'SAP_HANA_DATABASE', weight: 3, sizeGiB: [50, 4000], copyTypes: ['FULL', 'DIFFERENTIAL', 'LOG'], consistency: 'APPLICATION_CONSISTENT', protectionEngine: 'APPDIRECT' },
];

export function assetTypeInfo(type: string): AssetTypeInfo {
  return ASSET_TYPES.find((t) => t.type === type) ?? (ASSET_TYPES[0] as AssetTypeInfo);
}

/** The asset type of each ACTIVE policy, in creation order (repeats when there are more policies). */
export const POLICY_ASSET_TYPES = [
  'HV_VIRTUAL_MACHINE',
  'MICROSOFT_SQL_DATABASE',
  'POWERSTORE_BLOCK',
  'HV_VIRTUAL_MACHINE',
  'FILE_SYSTEM',
  'ORACLE_DATABASE',
  'KUBERNETES',
  'NAS_SHARE',
  'SAP_HANA_DATABASE',
] as const;

export const POLICY_NAMES = ['Gold', 'Silver', 'Bronze', 'Platinum', 'Tier-1', 'Tier-2', 'Archive', 'Critical', 'Standard'] as const;

/**
 * A policy's PROTECTION schedule: how the simulator runs its backups, and how
 * the stage shows it. Most show it as it runs; some show a schedule an
 * exporter cannot derive an RPO from (no schedule at all, a frequency of
 * another release) while their backups still run daily.
 */
export interface PolicySchedulePlan {
  frequency: 'HOURLY' | 'DAILY' | 'WEEKLY';
  interval: number;
  /** 'minutes': the same schedule written as MINUTELY with the interval in minutes */
  shown: 'schedule' | 'minutes' | 'null' | 'unknown-frequency';
  /**
   * A second operation of the stage: a YEARLY full (never the most frequent),
   * or one whose frequency the exporter does not know, which costs only itself.
   */
  extra?: 'YEARLY' | 'unknown-frequency';
}

/** The frequency a policy shown with 'unknown-frequency' has: none of the product's Schedule enum. */
export const UNKNOWN_FREQUENCY = 'CONTINUOUS';

/**
 * The PROTECTION schedule of each ACTIVE policy, in creation order (repeats
 * when there are more policies). Hourly intervals are widened when retention
 * (whole days) would otherwise hold too many copies: see hourlyInterval in
 * generate.ts. Eight ACTIVE policies (protectionPolicies >= 9) show every kind.
 */
export const POLICY_SCHEDULES: readonly PolicySchedulePlan[] = [
  { frequency: 'DAILY', interval: 1, shown: 'schedule' },
  { frequency: 'HOURLY', interval: 8, shown: 'minutes' },
  { frequency: 'HOURLY', interval: 12, shown: 'schedule' },
  { frequency: 'HOURLY', interval: 4, shown: 'schedule' },
  { frequency: 'DAILY', interval: 1, shown: 'schedule', extra: 'unknown-frequency' },
  { frequency: 'WEEKLY', interval: 1, shown: 'schedule', extra: 'YEARLY' },
  { frequency: 'DAILY', interval: 1, shown: 'null' },
  { frequency: 'DAILY', interval: 1, shown: 'unknown-frequency' },
];

/** Extra stages of each ACTIVE policy, in creation order (PROTECTION is always there). */
export const POLICY_EXTRA_STAGES: readonly StageType[][] = [['REPLICATION'], ['CLOUD_TIER'], [], ['REPLICATION', 'CLOUD_TIER']];

export interface CategoryInfo {
  category: string;
  weight: number;
  subcategories: string[];
  /** job-group categories run one job per asset of a policy */
  grouped: boolean;
  /** job duration range in seconds */
  durationS: [number, number];
  moveBytes: boolean;
  label: string;
}

export const ACTIVITY_CATEGORIES: readonly CategoryInfo[] = [
  { category: 'PROTECT', weight: 55, subcategories: ['SCHEDULED', 'SCHEDULED', 'SCHEDULED', 'MANUAL'], grouped: true, durationS: [60, 3600], moveBytes: true, label: 'Protect' },
  { category: 'REPLICATE', weight: 12, subcategories: ['SCHEDULED'], grouped: true, durationS: [60, 2400], moveBytes: true, label: 'Replicate' },
  { category: 'CLOUD_TIER', weight: 6, subcategories: ['SCHEDULED'], grouped: true, durationS: [120, 3600], moveBytes: true, label: 'Cloud tier' },
  { category: 'DELETE', weight: 8, subcategories: ['EXPIRED_COPIES', 'MANUAL'], grouped: false, durationS: [5, 300], moveBytes: false, label: 'Delete copies' },
  { category: 'DISCOVER', weight: 5, subcategories: ['INVENTORY_SOURCE', 'STORAGE', 'APP_HOST'], grouped: false, durationS: [10, 600], moveBytes: false, label: 'Discover' },
  { category: 'RESTORE', weight: 3, subcategories: ['TO_PRODUCTION', 'TO_ALTERNATE', 'INSTANT_ACCESS'], grouped: false, durationS: [120, 5400], moveBytes: true, label: 'Restore' },
  { category: 'INDEX', weight: 4, subcategories: ['INDEXING'], grouped: false, durationS: [30, 1200], moveBytes: false, label: 'Index copies' },
  { category: 'VALIDATE', weight: 2, subcategories: ['CONFIG', 'COPY'], grouped: false, durationS: [5, 120], moveBytes: false, label: 'Validate' },
  { category: 'SYSTEM', weight: 3, subcategories: ['SERVER_DR', 'HEALTH', 'CERTIFICATE'], grouped: false, durationS: [30, 900], moveBytes: false, label: 'System' },
  { category: 'CONFIG', weight: 1, subcategories: ['POLICY', 'STORAGE'], grouped: false, durationS: [2, 60], moveBytes: false, label: 'Configure' },
  { category: 'CLOUD_DR', weight: 1, subcategories: ['TEST', 'FAILOVER'], grouped: false, durationS: [300, 3600], moveBytes: true, label: 'Cloud DR' },
];

/** final result of a job, weighted */
export const RESULT_WEIGHTS: readonly [ActivityResultStatus, number][] = [
  ['OK', 86],
  ['OK_WITH_ERRORS', 5],
  ['FAILED', 6],
  ['CANCELED', 2],
  ['SKIPPED', 1],
];

export const ACTIVITY_ERRORS = [
  { code: 'ABA0015', reason: 'Unable to connect to the hypervisor manager', remediation: 'Verify the inventory source is reachable and its credentials are valid' },
  { code: 'ABA0021', reason: 'The storage system ran out of capacity', remediation: 'Free capacity on the storage system or add a storage target' },
  { code: 'ABA0034', reason: 'Snapshot creation failed on the asset', remediation: 'Check the asset for pending snapshots and retry' },
  { code: 'ABA0047', reason: 'The operation timed out', remediation: 'Retry the operation; raise the job timeout if it persists' },
] as const;

export const AUDIT_TYPES = [
  'APP_HOST_CONFIGURATION',
  'COMPLIANCE',
  'PROTECTION',
  'PROTECTION_COPY',
  'PROTECTION_INFRASTRUCTURE',
  'PROTECTION_POLICY',
  'PROTECTION_SOURCE',
  'PUSH_UPDATE',
  'RESTORE_PLAN',
  'SECURITY',
  'SERVER_DR',
  'STORAGE',
  'SYSTEM',
] as const;

/** what an audit entry of each type is about and says (message ids are stable per template) */
export const AUDIT_TEMPLATES: Record<(typeof AUDIT_TYPES)[number], { resourceType: string; object: 'asset' | 'policy' | 'storage' | 'source' | 'user' | 'system'; verbs: string[] }> = {
  APP_HOST_CONFIGURATION: { resourceType: 'APP_HOST', object: 'asset', verbs: ['Application host settings updated', 'Agent registered'] },
  COMPLIANCE: { resourceType: 'COMPLIANCE_OBJECTIVE', object: 'policy', verbs: ['Compliance objectives evaluated', 'Service level objective changed'] },
  PROTECTION: { resourceType: 'ASSET', object: 'asset', verbs: ['Protection started manually', 'Asset added to protection'] },
  PROTECTION_COPY: { resourceType: 'COPY', object: 'asset', verbs: ['Copy retention changed', 'Copy deleted', 'Copy locked'] },
  PROTECTION_INFRASTRUCTURE: { resourceType: 'STORAGE_SYSTEM', object: 'storage', verbs: ['Data target added', 'Storage unit updated'] },
  PROTECTION_POLICY: { resourceType: 'PROTECTION_POLICY', object: 'policy', verbs: ['Protection policy updated', 'Protection policy schedule changed', 'Protection policy disabled', 'Protection policy enabled'] },
  PROTECTION_SOURCE: { resourceType: 'INVENTORY_SOURCE', object: 'source', verbs: ['Inventory source updated', 'Inventory source credentials changed'] },
  PUSH_UPDATE: { resourceType: 'UPDATE_PACKAGE', object: 'system', verbs: ['Update package pushed to agents'] },
  RESTORE_PLAN: { resourceType: 'RESTORE_PLAN', object: 'asset', verbs: ['Restore plan created', 'Restore plan run'] },
  SECURITY: { resourceType: 'USER', object: 'user', verbs: ['User logged in', 'User logged out', 'Password changed', 'Login failed'] },
  SERVER_DR: { resourceType: 'SERVER_DR', object: 'system', verbs: ['Server disaster recovery backup configured'] },
  STORAGE: { resourceType: 'STORAGE_SYSTEM', object: 'storage', verbs: ['Storage system added', 'Storage system credentials updated'] },
  SYSTEM: { resourceType: 'SYSTEM', object: 'system', verbs: ['Time zone changed', 'Certificate renewed', 'Log bundle created'] },
};

export const USERS = [
  { id: '1b0c2a5e-0001-4000-8000-000000000001', username: 'admin' },
  { id: '1b0c2a5e-0002-4000-8000-000000000002', username: 'backup.operator' },
  { id: '1b0c2a5e-0003-4000-8000-000000000003', username: 'restore.admin' },
  { id: '1b0c2a5e-0004-4000-8000-000000000004', username: 'svc-automation' },
  { id: '1b0c2a5e-0005-4000-8000-000000000005', username: 'jürgen.weiß' },
] as const;

export const ALERT_TEMPLATES: readonly { severity: AlertSeverity; category: string; message: string }[] = [
  { severity: 'CRITICAL', category: 'Protection', message: 'Protection job failed for asset {asset}' },
  { severity: 'CRITICAL', category: 'Storage', message: 'Storage system {storage} capacity above 95%' },
  { severity: 'WARNING', category: 'Protection', message: 'Asset {asset} missed its recovery point objective' },
  { severity: 'WARNING', category: 'Storage', message: 'Storage system {storage} capacity above 80%' },
  { severity: 'WARNING', category: 'Inventory', message: 'Discovery of inventory source {source} failed' },
  { severity: 'WARNING', category: 'Security', message: 'Certificate of {source} expires in 14 days' },
  { severity: 'INFORMATIONAL', category: 'System', message: 'Server disaster recovery backup completed' },
  { severity: 'INFORMATIONAL', category: 'Protection', message: 'Protection policy {policy} was modified' },
];

export const SITES = ['ams', 'fra', 'nyc', 'sgp', 'lon'] as const;
export const ROLES = ['web', 'app', 'db', 'file', 'mail', 'build', 'cache', 'ldap', 'etl', 'mq'] as const;
export const GUEST_OS = [
  'Microsoft Windows Server 2022 (64-bit)',
  'Microsoft Windows Server 2019 (64-bit)',
  'Red Hat Enterprise Linux 9 (64-bit)',
  'Ubuntu Linux (64-bit)',
  'SUSE Linux Enterprise 15 (64-bit)',
] as const;

/**
 * Names that exporters must carry through untouched into labels and filters:
 * quotes, backslashes, spaces and non-ASCII. The generator gives them to the
 * first assets of every block of 40, so even a tiny estate has each kind.
 */
export const AWKWARD_NAMES: readonly ((n: number) => string)[] = [
  (n) => `web "frontend" ${n}`,
  (n) => `C:\\Data\\share${n}`,
  (n) => `db server ${n} (prod)`,
  (n) => `Datenbank-Müller-${n}`,
  (n) => `サーバー-${n}`,
  (n) => `quote\\"mix ${n} ✓`,
];

export const CLOUD_REGIONS = ['us-east-1', 'eu-central-1', 'ap-southeast-2'] as const;
