/**
 * Copies: creation from a policy's schedule, the time-derived cloud tiering,
 * and rendering to the API shape.
 */
import { omits } from '../core/sparse';
import type { SeededRandom } from '../core/random';
import { assetTypeInfo, DAY_MS, HOUR_MS } from './catalog';
import type { AssetRecord, CopyRecord, EstateState, PolicyRecord } from './records';
import type { Copy, CopyLocation, CopyMetrics, StageCopyMetrics, StageType } from './shapes';
import { uuidFrom } from './hash';

export function copyLocation(c: CopyRecord, nowMs: number): CopyLocation {
  return c.location === 'LOCAL' && nowMs >= c.tierAtMs ? 'CLOUD' : c.location;
}

/** the policy stage a copy counts under */
export function copyStageType(c: CopyRecord, nowMs: number): StageType {
  if (c.replicated) return 'REPLICATION';
  const location = copyLocation(c, nowMs);
  return location === 'CLOUD' || location === 'LOCAL_RECALLED' ? 'CLOUD_TIER' : 'PROTECTION';
}

/** backups of an asset happen at anchor + phase + k * period; the first one after `afterMs` */
export function nextBackupAfter(policy: PolicyRecord, phaseMs: number, afterMs: number): number {
  const base = policy.anchorMs + phaseMs;
  const k = Math.floor((afterMs - base) / policy.periodMs) + 1;
  return base + k * policy.periodMs;
}

/** the daily copy-expiry job runs at 02:00 UTC; the last run at or before `ms` */
export function lastExpiryRun(ms: number): number {
  return Math.floor((ms - 2 * HOUR_MS) / DAY_MS) * DAY_MS + 2 * HOUR_MS;
}

export interface CopySpec {
  createMs: number;
  retentionMs: number;
  replicated: boolean;
  location: CopyLocation;
  tierAtMs: number;
  storageSystemId: string;
  adhoc?: boolean;
  copyType?: string;
  size?: number;
}

export function makeCopy(rng: SeededRandom, asset: AssetRecord, policy: PolicyRecord | null, spec: CopySpec): CopyRecord {
  const info = assetTypeInfo(asset.api.type);
  const copyType = spec.copyType ?? (rng.chance(0.4) ? (info.copyTypes[0] as string) : rng.pick(info.copyTypes));
  const share = copyType === 'FULL' ? 0.3 + rng.next() * 0.5 : copyType === 'LOG' ? 0.001 + rng.next() * 0.01 : 0.01 + rng.next() * 0.1;
  return {
    id: uuidFrom(rng),
    asset,
    createMs: spec.createMs,
    retentionMs: spec.retentionMs,
    size: spec.size ?? Math.max(1 << 20, Math.floor(asset.api.size * share)),
    copyType,
    location: spec.location,
    tierAtMs: spec.tierAtMs,
    replicated: spec.replicated,
    adhoc: spec.adhoc ?? false,
    storageSystemId: spec.storageSystemId,
    policy,
    hotAdd: rng.chance(0.7),
  };
}

/** the PROTECTION copy (and the replicated copy, when the policy replicates) of one scheduled backup */
export function scheduledCopies(rng: SeededRandom, asset: AssetRecord, policy: PolicyRecord, createMs: number, storageArrayId: string | null): CopyRecord[] {
  const onArray = asset.api.type === 'POWERSTORE_BLOCK' && storageArrayId !== null;
  const protection = makeCopy(rng, asset, policy, {
    createMs,
    retentionMs: createMs + (policy.retentionMs.PROTECTION ?? DAY_MS),
    replicated: false,
    location: onArray ? 'STORAGEARRAY' : 'LOCAL',
    tierAtMs: policy.tierAfterMs > 0 && !onArray ? createMs + policy.tierAfterMs : Infinity,
    storageSystemId: onArray ? storageArrayId : policy.protectionStorageId,
  });
  const copies = [protection];
  if (policy.retentionMs.REPLICATION !== undefined) {
    copies.push(
      makeCopy(rng, asset, policy, {
        createMs,
        retentionMs: createMs + policy.retentionMs.REPLICATION,
        replicated: true,
        location: 'LOCAL',
        tierAtMs: Infinity,
        storageSystemId: policy.replicationStorageId,
        copyType: protection.copyType,
        size: protection.size,
      }),
    );
  }
  return copies;
}

/** adds a copy to its asset (keeping createMs order) and the id index; moves lastAvailableCopyTime unless it is pinned */
export function attachCopy(state: EstateState, copy: CopyRecord): void {
  const asset = copy.asset;
  const list = asset.copies;
  let at = list.length;
  while (at > 0 && (list[at - 1] as CopyRecord).createMs > copy.createMs) at--;
  list.splice(at, 0, copy);
  asset.minRetentionMs = Math.min(asset.minRetentionMs, copy.retentionMs);
  state.copyById.set(copy.id, copy);
  if (!asset.pinned && (asset.lastCopyMs === null || copy.createMs > asset.lastCopyMs)) {
    setLastCopy(asset, copy.createMs, Math.max(copy.createMs, asset.createdMs));
  }
}

export function setLastCopy(asset: AssetRecord, lastCopyMs: number | null, updatedMs: number): void {
  asset.lastCopyMs = lastCopyMs;
  asset.api.lastAvailableCopyTime = lastCopyMs === null ? null : new Date(lastCopyMs).toISOString();
  asset.api.updatedAt = new Date(Math.max(updatedMs, Date.parse(asset.api.updatedAt))).toISOString();
}

export function newestCopy(asset: AssetRecord): CopyRecord | undefined {
  return asset.copies[asset.copies.length - 1];
}

function serialOf(storageSystemId: string): string {
  return `APM00${storageSystemId.replace(/-/g, '').slice(0, 10).toUpperCase()}`;
}

export function renderCopy(c: CopyRecord, nowMs: number): Copy {
  const location = copyLocation(c, nowMs);
  const vm = c.asset.api.details.vm;
  const copy: Copy = {
    id: c.id,
    createTime: new Date(c.createMs).toISOString(),
    storageSystemId: c.storageSystemId,
    size: c.size,
    state: c.state ?? null,
    protectionCreated: !c.adhoc,
    replicatedCopy: c.replicated,
    adhocBackup: c.adhoc,
    partialCopy: false,
    copyType: c.copyType,
    copyConsistency: assetTypeInfo(c.asset.api.type).consistency,
    retentionLock: 'ALL_COPIES_UNLOCKED',
    retentionTime: new Date(c.retentionMs).toISOString(),
    retierTime: null,
    partialCopyDescription: null,
    baseCopyId: null,
    exportedCopyCount: null,
    externalId: null,
    restoreTargetCompatibilities: null,
    logCount: c.copyType === 'LOG' ? '1' : '0',
    location,
    details: {
      arraySubType: location === 'STORAGEARRAY' ? 'POWERSTORE' : 'DEDUPSYSTEM',
      arraySerialNo: serialOf(c.storageSystemId),
      storageClass: location === 'CLOUD' ? 'Cloud' : 'Protection',
    },
  };
  // the model leaves size and location optional: a few copies show it
  if (omits(c.id, 'size')) delete copy.size;
  if (omits(c.id, 'location')) delete copy.location;
  if (vm) {
    const disks = vm.disks.map((d, i) => ({
      excluded: d.excluded,
      capacityInBytes: d.sizeInBytes,
      controller: 0,
      backupIndex: i,
      provisioningType: d.thinProvisioned ? 'THIN' : 'THICK_LAZY',
      controllerType: 'SCSI',
      unitNumber: i,
      label: d.label,
      key: d.key,
    }));
    const backed = disks.filter((d) => !d.excluded).length;
    copy.details.vmBackup = {
      disks,
      backupId: `${c.id.slice(0, 8)}${c.createMs.toString(16)}`,
      protectionEngineType: 'VMDIRECT',
      transportModeUsed: c.hotAdd ? 'HOTADD' : null,
      syntheticFull: true,
      quiesceStatus: 'COPY',
      diskBackupCount: backed,
      diskTotalCount: disks.length,
      partialCopy: false,
    };
  }
  return copy;
}

/** copy counts, sizes and per-stage newest/oldest copy of one asset, as GET /copy-metrics has them */
export function copyMetricsOf(asset: AssetRecord, nowMs: number): CopyMetrics {
  const stages = new Map<string, StageCopyMetrics & { latestMs: number; oldestMs: number }>();
  let minSize = Infinity;
  let maxSize = 0;
  for (const c of asset.copies) {
    minSize = Math.min(minSize, c.size);
    maxSize = Math.max(maxSize, c.size);
    const stageType = copyStageType(c, nowMs);
    const policyId = c.policy?.api.id ?? null;
    const key = `${policyId}/${stageType}`;
    const entry = stages.get(key);
    if (entry) {
      entry.copyCount++;
      entry.latestMs = Math.max(entry.latestMs, c.createMs);
      entry.oldestMs = Math.min(entry.oldestMs, c.createMs);
    } else {
      stages.set(key, {
        policyId,
        stageId: c.policy?.stageIds[stageType] ?? null,
        stageType,
        copyCount: 1,
        latestCopyTime: '',
        oldestCopyTime: '',
        latestMs: c.createMs,
        oldestMs: c.createMs,
      });
    }
  }
  const adhoc = asset.copies.filter((c) => c.adhoc).length;
  return {
    assetId: asset.api.id,
    totalNumbers: asset.copies.length,
    centralizedCopyCount: asset.copies.length - adhoc,
    selfServiceCopyCount: adhoc,
    minCopySize: asset.copies.length > 0 ? minSize : 0,
    maxCopySize: maxSize,
    stageCopyMetrics: [...stages.values()].map(({ latestMs, oldestMs, ...m }) => ({
      ...m,
      latestCopyTime: new Date(latestMs).toISOString(),
      oldestCopyTime: new Date(oldestMs).toISOString(),
    })),
  };
}
