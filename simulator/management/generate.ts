/**
 * Builds the management estate at the clock's start: storage systems,
 * policies, inventory sources, assets with their copies, two days of
 * activities, seven days of (virtual) audit entries, alerts and cloud DR
 * sessions. Every part draws from its own fork of the management stream, so
 * changing how one part is drawn never reshuffles another.
 */
import type { EstateSize } from '../types';
import type { SimulatedClock } from '../core/clock';
import type { SeededRandom } from '../core/random';
import { generateActivityHour } from './activities';
import { AuditStore } from './audit';
import {
  ALERT_TEMPLATES,
  ASSET_TYPES,
  AWKWARD_NAMES,
  CLOUD_REGIONS,
  DAY_MS,
  GUEST_OS,
  HOUR_MS,
  POLICY_ASSET_TYPES,
  POLICY_EXTRA_STAGES,
  POLICY_NAMES,
  POLICY_SCHEDULES,
  ROLES,
  SITES,
  UNKNOWN_FREQUENCY,
  assetTypeInfo,
  type PolicySchedulePlan,
} from './catalog';
import { lastExpiryRun, makeCopy, nextBackupAfter, scheduledCopies } from './copies';
import { addDeletedCopies } from './deleted-copies';
import { evolve } from './evolution';
import { HourlyFeed, hourlyCount, sortedTimes } from './feed';
import { ManagementEstate } from './model';
import type { ActivityRecord, AssetRecord, CopyRecord, EstateState, InventorySourceRecord, PolicyRecord } from './records';
import type { Alert, Asset, CloudDrSession, PolicyStage, StageType, StorageSystem, VmDetails } from './shapes';
import { uuidFrom } from './hash';
import { newAssetRecord } from './new-asset';

/** how far back activities reach at start */
export const ACTIVITY_HISTORY_MS = 2 * DAY_MS;
/** how far back the audit log reaches at start */
export const AUDIT_HISTORY_MS = 7 * DAY_MS;

/**
 * The products' names of asset types where the seeds use their own (the
 * same assets otherwise): a service of the real products reports its
 * virtual machines as VMWARE_VIRTUAL_MACHINE.
 */
const PRODUCT_TYPE_NAMES: Readonly<Record<string, string>> = { HV_VIRTUAL_MACHINE: 'VMWARE_VIRTUAL_MACHINE' };

export interface ManagementEstateOptions {
  /** asset type names: the seeds' (default) or the real products' */
  typeNames?: 'seed' | 'product';
}

export function createManagementEstate(random: SeededRandom, size: EstateSize, clock: SimulatedClock, options: ManagementEstateOptions = {}): ManagementEstate {
  const rng = random.fork('management');
  const startMs = clock.now().getTime();

  const storageSystems = makeStorageSystems(rng.fork('storage-systems'), size);
  const dedup = storageSystems.filter((s) => s.type === 'DEDUP_SYSTEM');
  const storageArray = storageSystems.find((s) => s.type === 'STORAGE_ARRAY') ?? null;
  const policies = makePolicies(rng.fork('policies'), size, startMs, dedup, storageArray);
  const inventorySources = makeInventorySources(rng.fork('inventory-sources'), size, startMs);
  const assets = makeAssets(rng, size, startMs, policies, inventorySources, storageArray?.id ?? null);

  const hashSeed = rng.fork('audit').int(0, 0x7fffffff);
  const audit = new AuditStore(hashSeed, size.auditEntries, startMs - AUDIT_HISTORY_MS, startMs, {
    assets: assets.slice(0, 2000).map((a) => ({ id: a.api.id, name: a.api.name })),
    policies: policies.map((p) => ({ id: p.api.id, name: p.api.name })),
    storage: storageSystems.map((s) => ({ id: s.id, name: s.name })),
    sources: inventorySources.map((s) => ({ id: s.api.id, name: s.api.name })),
  });

  const state: EstateState = {
    clock,
    size,
    startMs,
    random: rng,
    policies,
    assets,
    assetById: new Map(assets.map((a) => [a.api.id, a])),
    copyById: new Map(),
    activities: [],
    activityById: new Map(),
    // placeholders, replaced right below (the feeds need the state itself)
    activityFeed: undefined as unknown as HourlyFeed<ActivityRecord>,
    audit,
    auditFeed: undefined as unknown as HourlyFeed<number>,
    inventorySources,
    storageSystems,
    cloudDrSessions: makeCloudDrSessions(rng.fork('cloud-dr'), assets, startMs),
    alerts: makeAlerts(rng.fork('alerts'), size, startMs, assets, storageSystems, inventorySources, policies),
    maxActivitySpanMs: 0,
    version: 0,
    assetsVersion: 0,
  };
  for (const asset of assets) for (const copy of asset.copies) state.copyById.set(copy.id, copy);
  // Renamed once everything is drawn: the two namings give the same estate.
  if (options.typeNames === 'product') for (const asset of assets) asset.api.type = PRODUCT_TYPE_NAMES[asset.api.type] ?? asset.api.type;

  state.activityFeed = new HourlyFeed<ActivityRecord>(
    startMs - ACTIVITY_HISTORY_MS,
    (a) => a.createMs,
    (hour) => generateActivityHour(state, rng.fork(`activities/${hour}`), hour * HOUR_MS, HOUR_MS),
  );
  state.auditFeed = new HourlyFeed<number>(
    startMs,
    (t) => t,
    (hour) => {
      const hourRng = rng.fork(`audit/${hour}`);
      return sortedTimes(hourlyCount(size.auditEntriesPerDay, () => hourRng.next()), hour * HOUR_MS, HOUR_MS, () => hourRng.next());
    },
  );
  // The audit entries up to the start are the virtual ones: skip what the feed has for that span.
  state.auditFeed.release(startMs);
  // The activity history: everything the feed has created in the two days before the start.
  const historyStart = startMs - ACTIVITY_HISTORY_MS;
  evolve(state, historyStart, startMs, { notBeforeMs: historyStart });

  const estate = new ManagementEstate(state);
  clock.onAdvance((from, to) => evolve(state, from.getTime(), to.getTime()));
  return estate;
}

function makeStorageSystems(rng: SeededRandom, size: EstateSize): StorageSystem[] {
  const systems: StorageSystem[] = [];
  const count = Math.max(1, size.storageSystems);
  for (let i = 0; i < count; i++) {
    systems.push({
      id: uuidFrom(rng),
      name: `dd${String(i + 1).padStart(2, '0')}.backup.example.lab`,
      type: 'DEDUP_SYSTEM',
      readiness: 'READY',
      capacityUtilization: Math.round((35 + rng.next() * 50) * 10) / 10,
      lastDiscoveryStatus: 'DETECTED',
    });
  }
  systems.push({
    id: uuidFrom(rng),
    name: 'powerstore-01.example.lab',
    type: 'STORAGE_ARRAY',
    readiness: 'READY',
    capacityUtilization: Math.round((20 + rng.next() * 40) * 10) / 10,
    lastDiscoveryStatus: 'DETECTED',
  });
  systems.push({
    id: uuidFrom(rng),
    name: CLOUD_REGIONS[0],
    type: 'CDR_REGION_SYSTEM',
    readiness: 'NOT_READY',
    capacityUtilization: 0,
    lastDiscoveryStatus: 'NOT_DETECTED',
  });
  return systems;
}

/** Copies a policy keeps per asset in steady state, so that the estate averages copiesPerAsset. */
function steadyCopies(size: EstateSize): number {
  return Math.max(1, size.copiesPerAsset / Math.max(0.05, 1 - size.assetsWithoutCopyShare));
}

function makePolicies(rng: SeededRandom, size: EstateSize, startMs: number, dedup: StorageSystem[], storageArray: StorageSystem | null): PolicyRecord[] {
  const count = Math.max(1, size.protectionPolicies);
  const activeCount = count >= 2 ? count - 1 : count;
  const policies: PolicyRecord[] = [];
  const dayStart = Math.floor(startMs / DAY_MS) * DAY_MS;
  const steady = steadyCopies(size);
  for (let i = 0; i < count; i++) {
    const active = i < activeCount;
    const assetType: string = active ? (POLICY_ASSET_TYPES[i % POLICY_ASSET_TYPES.length] as string) : 'HV_VIRTUAL_MACHINE';
    const schedule = POLICY_SCHEDULES[i % POLICY_SCHEDULES.length] as (typeof POLICY_SCHEDULES)[number];
    const extras = active ? (POLICY_EXTRA_STAGES[i % POLICY_EXTRA_STAGES.length] as StageType[]) : [];
    const protectionCopies = extras.includes('REPLICATION') ? Math.max(1, Math.round(steady * 0.7)) : Math.max(1, Math.round(steady));
    const replicationCopies = Math.max(1, Math.round(steady) - protectionCopies);
    const interval = schedule.frequency === 'HOURLY' ? hourlyInterval(schedule.interval, protectionCopies) : schedule.interval;
    const periodMs = active ? periodOf(schedule.frequency, interval) : 0;
    const anchorMs = dayStart - 7 * DAY_MS + ((20 + i) % 24) * HOUR_MS;
    const windowMs = active ? Math.min(8 * HOUR_MS, Math.max(HOUR_MS / 2, periodMs / 4)) : 0;
    // retention is in whole days: the number of days that holds about the wanted number of copies
    const retentionDays = (copies: number): number => Math.max(1, Math.round((copies * periodMs) / DAY_MS));
    const protectionStorage = (assetType === 'POWERSTORE_BLOCK' && storageArray ? storageArray : dedup[i % dedup.length]) as StorageSystem;
    const replicationStorage = dedup[(i + 1) % dedup.length] as StorageSystem;

    const stageIds: Partial<Record<StageType, string>> = {};
    const retentionMs: Partial<Record<StageType, number>> = {};
    const stages: PolicyStage[] = [];
    let tierAfterMs = 0;
    if (active) {
      const protectionId = uuidFrom(rng);
      const protectionDays = retentionDays(protectionCopies);
      stageIds.PROTECTION = protectionId;
      retentionMs.PROTECTION = protectionDays * DAY_MS;
      stages.push(
        stage(
          protectionId,
          'PROTECTION',
          protectionStorage.id,
          null,
          protectionDays,
          shownSchedule(schedule, interval, periodMs, anchorMs, windowMs),
        ),
      );
      if (schedule.extra) {
        const frequency = schedule.extra === 'YEARLY' ? 'YEARLY' : UNKNOWN_FREQUENCY;
        (stages[0] as PolicyStage).operations.push({ type: 'SYNTHETIC_FULL', schedule: { frequency, interval: 1, startTime: new Date(anchorMs).toISOString(), duration: 'PT8H' } });
      }
      if (extras.includes('REPLICATION')) {
        const id = uuidFrom(rng);
        const days = retentionDays(replicationCopies);
        stageIds.REPLICATION = id;
        retentionMs.REPLICATION = days * DAY_MS;
        stages.push(stage(id, 'REPLICATION', replicationStorage.id, protectionId, days, null));
      }
      if (extras.includes('CLOUD_TIER')) {
        const id = uuidFrom(rng);
        const tierAfterDays = Math.max(1, Math.floor(protectionDays / 2));
        tierAfterMs = tierAfterDays * DAY_MS;
        stageIds.CLOUD_TIER = id;
        const cloudStage = stage(id, 'CLOUD_TIER', protectionStorage.id, protectionId, protectionDays, null);
        cloudStage.attributes = { tierAfterDays };
        stages.push(cloudStage);
      }
    }
    const createdMs = startMs - (400 - i * 7) * DAY_MS;
    const shownFrequency = schedule.shown === 'null' ? 'unscheduled' : schedule.shown === 'unknown-frequency' ? UNKNOWN_FREQUENCY.toLowerCase() : schedule.frequency.toLowerCase();
    const baseName = active ? `${POLICY_NAMES[i % POLICY_NAMES.length]} ${assetType.toLowerCase().replace(/_/g, ' ')} ${shownFrequency}` : 'Excluded assets';
    policies.push({
      api: {
        id: uuidFrom(rng),
        name: i >= POLICY_NAMES.length ? `${baseName} ${i + 1}` : baseName,
        description: active ? `Protects ${assetType} assets ${shownFrequency}` : 'Assets deliberately left unprotected',
        type: active ? 'ACTIVE' : 'EXCLUDED',
        enabled: true,
        assetType,
        protectionEngine: assetTypeInfo(assetType).protectionEngine,
        stages,
        filterIds: [],
        createdAt: new Date(createdMs).toISOString(),
        updatedAt: new Date(createdMs + rng.int(1, 300) * DAY_MS).toISOString(),
        slaId: active && rng.chance(0.5) ? uuidFrom(rng) : null,
      },
      periodMs,
      anchorMs,
      windowMs,
      scheduleRpoMs: active && (schedule.shown === 'schedule' || schedule.shown === 'minutes') ? periodMs + windowMs : null,
      retentionMs,
      stageIds,
      tierAfterMs,
      protectionStorageId: protectionStorage.id,
      replicationStorageId: replicationStorage.id,
      groups: [],
    });
  }
  return policies;
}

/**
 * Retention is counted in whole days, so an hourly schedule keeps at least a
 * day's worth of copies: widen the interval (to a divisor of 24) until one
 * day of retention holds no more than the wanted number of copies.
 */
function hourlyInterval(nominal: number, copies: number): number {
  const divisors = [1, 2, 3, 4, 6, 8, 12];
  const fitting = divisors.filter((d) => d >= nominal && 24 / d <= Math.max(1, copies));
  return fitting[0] ?? 12;
}

/** The PROTECTION operation's schedule as the stage shows it (null: the operation is run by hand). */
function shownSchedule(plan: PolicySchedulePlan, interval: number, periodMs: number, anchorMs: number, windowMs: number): PolicyStage['operations'][number]['schedule'] {
  if (plan.shown === 'null') return null;
  const frequency = plan.shown === 'minutes' ? 'MINUTELY' : plan.shown === 'unknown-frequency' ? UNKNOWN_FREQUENCY : plan.frequency;
  // a sub-daily schedule's duration is the daily window its runs happen in (the products' start and end time): these run all day
  const duration = periodMs < DAY_MS ? 'PT24H' : `PT${Math.round(windowMs / 60000)}M`;
  return { frequency, interval: plan.shown === 'minutes' ? periodMs / 60_000 : interval, startTime: new Date(anchorMs).toISOString(), duration };
}

function periodOf(frequency: string, interval: number): number {
  if (frequency === 'HOURLY') return interval * HOUR_MS;
  if (frequency === 'WEEKLY') return interval * 7 * DAY_MS;
  return interval * DAY_MS;
}

function stage(id: string, type: StageType, storageSystemId: string, sourceStageId: string | null, retentionDays: number, schedule: PolicyStage['operations'][number]['schedule']): PolicyStage {
  return {
    id,
    type,
    passive: false,
    attributes: {},
    target: { storageSystemId, dataTargetId: null },
    slaId: null,
    sourceStageId,
    operations: [{ type: 'AUTO_FULL', schedule }],
    retention: { interval: retentionDays, unit: 'DAY', storageSystemRetentionLock: false },
  };
}

function makeInventorySources(rng: SeededRandom, size: EstateSize, startMs: number): InventorySourceRecord[] {
  const count = Math.min(6, Math.max(2, Math.ceil(size.assets / 2500)));
  const sources: InventorySourceRecord[] = [];
  for (let i = 0; i < count; i++) {
    const site = SITES[i % SITES.length] as string;
    const failing = i === count - 1;
    const name = `vcenter-${site}.example.lab`;
    const periodMs = HOUR_MS;
    sources.push({
      api: {
        id: uuidFrom(rng),
        name,
        version: rng.pick(['7.0.3', '8.0.1', '8.0.2']),
        type: 'HV_MANAGER',
        lastDiscovered: new Date(startMs).toISOString(),
        lastDiscoveryResult: failing
          ? { status: 'FAILED', summaries: [`Unable to connect to ${name}:443: connection timed out`] }
          : { status: 'OK', summaries: [] },
        lastDiscoveryTaskId: uuidFrom(rng),
        address: name,
        port: 443,
        credentials: { id: uuidFrom(rng) },
        details: { customAppGroup: null, hvManager: { internal: false, hosting: false, cloudType: 'NONE', hvUiIntegration: true } },
        local: false,
      },
      periodMs,
      phaseMs: rng.int(0, periodMs - 1),
    });
  }
  sources.push(...otherInventorySources(rng.fork('other-types'), startMs));
  return sources;
}

/**
 * Sources of other types, as the products list them beside the hypervisor
 * managers: a vCenter under the products' type name (discovered), and an
 * application host, a storage system and a group without a discovery result.
 */
function otherInventorySources(rng: SeededRandom, startMs: number): InventorySourceRecord[] {
  const kinds: Array<{ type: string; name: string; discovered: boolean }> = [
    { type: 'VCENTER', name: 'vcenter-lab.example.lab', discovered: true },
    { type: 'APP_HOST', name: 'apphost-sql01.example.lab', discovered: false },
    { type: 'DDSYSTEM', name: 'dd-protect01.example.lab', discovered: false },
    { type: 'ASSET_GROUP', name: 'finance-databases', discovered: false },
  ];
  return kinds.map(({ type, name, discovered }) => ({
    api: {
      id: uuidFrom(rng),
      name,
      version: type === 'VCENTER' ? '8.0.2' : '',
      type,
      lastDiscovered: new Date(startMs).toISOString(),
      lastDiscoveryResult: discovered ? { status: 'OK', summaries: [] } : null,
      lastDiscoveryTaskId: uuidFrom(rng),
      address: name,
      port: type === 'ASSET_GROUP' ? 0 : 443,
      credentials: { id: uuidFrom(rng) },
      details: { customAppGroup: null, hvManager: { internal: false, hosting: false, cloudType: 'NONE', hvUiIntegration: type === 'VCENTER' } },
      local: false,
    },
    periodMs: HOUR_MS,
    phaseMs: rng.int(0, HOUR_MS - 1),
  }));
}

function pad(n: number): string {
  return String(n).padStart(4, '0');
}

function assetName(rng: SeededRandom, type: string, ordinal: number): string {
  const slot = ordinal % 40;
  if (slot >= 1 && slot <= AWKWARD_NAMES.length) return (AWKWARD_NAMES[slot - 1] as (n: number) => string)(ordinal);
  const site = rng.pick(SITES);
  const role = rng.pick(ROLES);
  switch (type) {
    case 'HV_VIRTUAL_MACHINE':
      return `${site}-${role}-${pad(ordinal)}`;
    case 'MICROSOFT_SQL_DATABASE':
      return `${role}_db_${ordinal}`;
    case 'ORACLE_DATABASE':
      return `ORCL${role.toUpperCase()}${ordinal}`;
    case 'FILE_SYSTEM':
      return `/data/${role}/${ordinal}`;
    case 'NAS_SHARE':
      return `nas-${site}:/export/${role}${ordinal}`;
    case 'KUBERNETES':
      return `ns-${role}-${ordinal}`;
    case 'POWERSTORE_BLOCK':
      return `vol-${site}-${role}-${ordinal}`;
    default:
      return `HDB${ordinal}-${role}`;
  }
}

function vmDetails(rng: SeededRandom, name: string, ordinal: number, source: InventorySourceRecord): VmDetails {
  const site = rng.pick(SITES);
  const diskCount = rng.int(1, 4);
  const disks = [];
  for (let d = 0; d < diskCount; d++) {
    disks.push({
      name: `Hard disk ${d + 1}`,
      sizeInBytes: rng.pick([20, 40, 60, 100, 200, 500, 1024]) * 1024 ** 3,
      label: `Hard disk ${d + 1}`,
      key: 2000 + d,
      thinProvisioned: rng.chance(0.7),
      excluded: d > 0 && rng.chance(0.1),
    });
  }
  const cluster = rng.int(1, 4);
  const datastore = rng.int(1, 20);
  return {
    guestOS: rng.pick(GUEST_OS),
    datacenter: `dc-${site}`,
    resourcePool: 'Resources',
    hostName: `esx${String(rng.int(1, 64)).padStart(2, '0')}.${site}.example.lab`,
    folder: `/${site}/vms`,
    primaryIpAddress: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
    vmBiosUuid: uuidFrom(rng),
    dnsName: `${name.replace(/[^A-Za-z0-9-]/g, '-').toLowerCase()}.example.lab`,
    hvMgrName: source.api.name,
    inventorySourceName: source.api.name,
    hvName: source.api.name,
    clusterName: `cl-${site}-${cluster}`,
    protectedApplication: 'NONE',
    externalId: `vm-${1000 + ordinal}`,
    disks,
    datastore: [{ datastoreMoref: `datastore-${datastore}`, datastoreName: `ds-${site}-${datastore}` }],
  };
}

/** the per-asset facts drawn before copies are made */
interface AssetPlan {
  asset: AssetRecord;
  withoutCopies: boolean;
}

function makeAssets(
  rng: SeededRandom,
  size: EstateSize,
  startMs: number,
  policies: PolicyRecord[],
  sources: InventorySourceRecord[],
  storageArrayId: string | null,
): AssetRecord[] {
  const excluded = policies.find((p) => p.api.type === 'EXCLUDED') ?? null;
  const active = policies.filter((p) => p.api.type === 'ACTIVE');
  const plans: AssetPlan[] = [];
  const excludedShare = excluded ? 0.03 : 0;
  // EXCLUDED assets never have copies; the remaining share of copy-less assets is drawn among the others.
  const noCopyChance = Math.max(0, (size.assetsWithoutCopyShare - excludedShare) / (1 - excludedShare));
  const forced = size.assets >= 20;

  for (let i = 0; i < size.assets; i++) {
    const r = rng.fork(`asset/${i}`);
    let info = forced && i < ASSET_TYPES.length ? (ASSET_TYPES[i] as (typeof ASSET_TYPES)[number]) : weightedType(r);
    // most assets of a type no policy covers are of a covered type instead; the rest stay unprotected
    if (!(forced && i < ASSET_TYPES.length) && active.length > 0 && !active.some((p) => p.api.assetType === info.type) && r.chance(0.8)) {
      info = assetTypeInfo(r.pick(active).api.assetType);
    }
    const name = assetName(r, info.type, i);
    const id = uuidFrom(r);
    const candidates = active.filter((p) => p.api.assetType === info.type);
    let status: Asset['protectionStatus'] = 'PROTECTED';
    if (excluded && ((forced && i === 10) || r.chance(excludedShare))) status = 'EXCLUDED';
    else if (candidates.length === 0 || (forced && i === 9) || r.chance(0.06)) status = 'UNPROTECTED';
    const policy = status === 'EXCLUDED' ? excluded : status === 'PROTECTED' ? r.pick(candidates) : null;
    const young = r.chance(0.15);
    const createdMs = young ? startMs - r.int(HOUR_MS, 60 * DAY_MS) : startMs - r.int(120 * DAY_MS, 800 * DAY_MS);
    const source = sources[i % sources.length] as InventorySourceRecord;
    const vm = info.type === 'HV_VIRTUAL_MACHINE' ? vmDetails(r, name, i, source) : undefined;
    const sizeBytes = vm ? vm.disks.reduce((s, d) => s + d.sizeInBytes, 0) : Math.floor(r.int(info.sizeGiB[0], info.sizeGiB[1]) * 1024 ** 3 * (0.5 + r.next() / 2));
    const deleted = forced ? i === 11 || (i > 40 && r.chance(0.01)) : false;
    const credentialId = info.type.endsWith('DATABASE') ? uuidFrom(r) : null;
    const protectionLifeCycleId = policy && status === 'PROTECTED' ? uuidFrom(r) : null;
    const protectionEngine = vm ? 'VMDIRECT' : info.protectionEngine;
    const details = vm ? { vm } : {};
    const phaseMs = policy && policy.windowMs > 0 ? r.int(0, policy.windowMs - 1) : 0;
    const asset = newAssetRecord(
      { id, name, type: info.type, status, policy, protectionEngine, createdMs, deleted, sizeBytes, credentialId, protectionLifeCycleId, details },
      i,
      { phaseMs, nextBackupMs: Infinity },
    );
    const withoutCopies = status === 'EXCLUDED' || size.copiesPerAsset <= 0 || r.chance(noCopyChance);
    plans.push({ asset, withoutCopies });
  }

  const lastRun = lastExpiryRun(startMs);
  for (const plan of plans) makeInitialCopies(rng.fork(`copies/${plan.asset.ordinal}`), plan, startMs, lastRun, policies, storageArrayId);
  pinLaggingAssets(rng.fork('lagging'), plans.map((p) => p.asset));
  addDeletedCopies(rng.fork('deleted-copies'), plans.map((p) => p.asset), startMs);

  const assets = plans.map((p) => p.asset);
  for (const asset of assets) {
    const newest = asset.copies[asset.copies.length - 1];
    const updatedMs = Math.max(asset.createdMs, newest?.createMs ?? 0);
    asset.api.updatedAt = new Date(updatedMs).toISOString();
    asset.minRetentionMs = asset.copies.reduce((min, c) => Math.min(min, c.retentionMs), Infinity);
  }
  // natural order of the asset list: oldest first
  return assets.sort((a, b) => a.createdMs - b.createdMs || a.ordinal - b.ordinal);
}

function weightedType(rng: SeededRandom): (typeof ASSET_TYPES)[number] {
  let x = rng.next() * ASSET_TYPES.reduce((s, t) => s + t.weight, 0);
  for (const t of ASSET_TYPES) {
    x -= t.weight;
    if (x < 0) return t;
  }
  return ASSET_TYPES[0] as (typeof ASSET_TYPES)[number];
}

function makeInitialCopies(rng: SeededRandom, plan: AssetPlan, startMs: number, lastRunMs: number, policies: PolicyRecord[], storageArrayId: string | null): void {
  const { asset } = plan;
  const policy = asset.policy;
  const copies: CopyRecord[] = [];
  if (policy && policy.periodMs > 0) {
    if (!asset.api.deleted) asset.nextBackupMs = nextBackupAfter(policy, asset.phaseMs, Math.max(startMs, asset.createdMs));
    if (!plan.withoutCopies) {
      const longest = Math.max(policy.retentionMs.PROTECTION ?? 0, policy.retentionMs.REPLICATION ?? 0);
      let t = nextBackupAfter(policy, asset.phaseMs, startMs) - policy.periodMs;
      for (; t > startMs - longest && t >= asset.createdMs; t -= policy.periodMs) {
        for (const copy of scheduledCopies(rng, asset, policy, t, storageArrayId)) {
          if (copy.retentionMs <= startMs) continue; // expired long ago
          if (copy.location === 'LOCAL' && copy.tierAtMs <= startMs && rng.chance(0.1)) {
            copy.location = 'LOCAL_RECALLED';
            copy.tierAtMs = Infinity;
          }
          copies.push(copy);
        }
      }
      if (copies.length > 0 && rng.chance(0.05)) copies.push(expiredAwaitingDeletion(rng, asset, policy, copies, startMs, lastRunMs));
      if (rng.chance(0.03)) {
        const createMs = startMs - rng.int(HOUR_MS, 3 * DAY_MS);
        if (createMs >= asset.createdMs) {
          copies.push(
            makeCopy(rng, asset, policy, {
              createMs,
              retentionMs: createMs + rng.int(3, 14) * DAY_MS,
              replicated: false,
              location: 'LOCAL',
              tierAtMs: Infinity,
              storageSystemId: policy.protectionStorageId,
              adhoc: true,
              copyType: 'FULL',
            }),
          );
        }
      }
    }
  } else if (asset.api.protectionStatus === 'UNPROTECTED' && !plan.withoutCopies) {
    // protection was removed some days ago: daily copies up to then, no new ones
    const former = policies.find((p) => p.periodMs > 0);
    if (former) {
      const stoppedMs = startMs - rng.int(1, 10) * DAY_MS;
      for (let t = stoppedMs; t > startMs - 14 * DAY_MS && t >= asset.createdMs; t -= DAY_MS) {
        copies.push(
          makeCopy(rng, asset, null, {
            createMs: t,
            retentionMs: t + 14 * DAY_MS,
            replicated: false,
            location: 'LOCAL',
            tierAtMs: Infinity,
            storageSystemId: former.protectionStorageId,
          }),
        );
      }
    }
  }
  copies.sort((a, b) => a.createMs - b.createMs);
  asset.copies = copies;
  const newest = copies[copies.length - 1];
  if (newest) {
    asset.lastCopyMs = newest.createMs;
    asset.api.lastAvailableCopyTime = new Date(newest.createMs).toISOString();
  }
}

/** a copy whose retention passed after the last daily expiry run: still listed until the next run */
function expiredAwaitingDeletion(rng: SeededRandom, asset: AssetRecord, policy: PolicyRecord, copies: CopyRecord[], startMs: number, lastRunMs: number): CopyRecord {
  const oldest = copies.reduce((min, c) => Math.min(min, c.createMs), Infinity);
  const createMs = Math.max(asset.createdMs, oldest - policy.periodMs);
  const earliest = Math.max(createMs, lastRunMs + 1);
  const retentionMs = earliest >= startMs ? startMs : rng.int(earliest, startMs);
  return makeCopy(rng, asset, policy, {
    createMs,
    retentionMs,
    replicated: false,
    location: 'LOCAL',
    tierAtMs: Infinity,
    storageSystemId: policy.protectionStorageId,
  });
}

/**
 * Real servers update lastAvailableCopyTime late: a few assets with copies
 * report null, a few an older copy's time, and keep doing so as copies come.
 */
function pinLaggingAssets(rng: SeededRandom, assets: AssetRecord[]): void {
  const eligible = assets.filter((a) => !a.api.deleted && a.copies.length > 0 && a.policy);
  if (eligible.length < 3) return;
  const perKind = Math.max(1, Math.floor(eligible.length * 0.01));
  // partial Fisher-Yates: distinct picks
  for (let i = 0; i < Math.min(eligible.length, 2 * perKind); i++) {
    const j = rng.int(i, eligible.length - 1);
    [eligible[i], eligible[j]] = [eligible[j] as AssetRecord, eligible[i] as AssetRecord];
  }
  for (let i = 0; i < 2 * perKind && i < eligible.length; i++) {
    const asset = eligible[i] as AssetRecord;
    asset.pinned = true;
    if (i < perKind) {
      asset.lastCopyMs = null;
    } else {
      const newest = (asset.copies[asset.copies.length - 1] as CopyRecord).createMs;
      const older = asset.copies.filter((c) => c.createMs < newest).pop();
      asset.lastCopyMs = older ? older.createMs : newest - (asset.policy?.periodMs || DAY_MS);
    }
    asset.api.lastAvailableCopyTime = asset.lastCopyMs === null ? null : new Date(asset.lastCopyMs).toISOString();
  }
}

function makeAlerts(
  rng: SeededRandom,
  size: EstateSize,
  startMs: number,
  assets: AssetRecord[],
  storage: StorageSystem[],
  sources: InventorySourceRecord[],
  policies: PolicyRecord[],
): Alert[] {
  const count = Math.min(200, Math.max(8, Math.round(size.assets / 20)));
  const times = sortedTimes(count, startMs - 7 * DAY_MS, 7 * DAY_MS, () => rng.next());
  return times.map((t, i) => {
    const template = i < ALERT_TEMPLATES.length ? (ALERT_TEMPLATES[i] as (typeof ALERT_TEMPLATES)[number]) : rng.pick(ALERT_TEMPLATES);
    const message = template.message
      .replace('{asset}', assets.length > 0 ? rng.pick(assets).api.name : 'unknown')
      .replace('{storage}', rng.pick(storage).name)
      .replace('{source}', rng.pick(sources).api.name)
      .replace('{policy}', rng.pick(policies).api.name);
    const alert: Alert = {
      id: uuidFrom(rng),
      severity: template.severity,
      category: template.category,
      message,
      postedTime: new Date(t).toISOString(),
      acknowledgement: { acknowledgeState: rng.chance(0.4) ? 'ACKNOWLEDGED' : 'UNACKNOWLEDGED' },
    };
    // only id is required by the model: the newest alert gives no severity
    if (i === times.length - 1) delete alert.severity;
    return alert;
  });
}

function makeCloudDrSessions(rng: SeededRandom, assets: AssetRecord[], startMs: number): CloudDrSession[] {
  const vms = assets.filter((a) => a.api.type === 'HV_VIRTUAL_MACHINE' && !a.api.deleted);
  if (vms.length === 0) return [];
  const count = Math.min(12, Math.max(2, Math.round(assets.length / 100)));
  const statuses = ['READY', 'READY', 'READY', 'DEPLOYING', 'FAILED', 'DELETING'];
  const sessions: CloudDrSession[] = [];
  for (let i = 0; i < count; i++) {
    sessions.push({
      id: uuidFrom(rng),
      assetName: rng.pick(vms).api.name,
      drType: i === 0 ? 'Test' : i === 1 ? 'Failover' : rng.chance(0.7) ? 'Test' : 'Failover',
      region: rng.pick(CLOUD_REGIONS),
      status: i === 0 ? 'READY' : (statuses[rng.int(0, statuses.length - 1)] as string),
      instanceId: `i-0${uuidFrom(rng).replace(/-/g, '').slice(0, 16)}`,
      copyTime: new Date(startMs - rng.int(HOUR_MS, 7 * DAY_MS)).toISOString(),
    });
  }
  // drType and status are optional in the model: one session gives no type, another no status
  if (sessions[2]) delete sessions[2].drType;
  if (sessions[3]) delete sessions[3].status;
  return sessions;
}
