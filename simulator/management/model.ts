/**
 * ManagementEstate: the truth of the simulated management service, for the
 * tests that compare an exporter's numbers with it, and the mutators those
 * tests use to set up precise scenarios. Accessors return the API shapes
 * (plain data); treat them as read-only and change the estate through the
 * mutators, which also keep the served data consistent.
 */
import { activitySpanMs, activityState, recordRef, renderActivity } from './activities';
import { ACTIVITY_CATEGORIES, DAY_MS, assetTypeInfo } from './catalog';
import { attachCopy, copyMetricsOf, makeCopy, nextBackupAfter, renderCopy, setLastCopy } from './copies';
import { addReleasedActivity } from './evolution';
import { lowerBound, uuidFrom } from './hash';
import { newAssetRecord } from './new-asset';
import type { ActivityRecord, AssetRecord, CopyRecord, EstateState, PolicyRecord } from './records';
import type {
  Activity,
  ActivityClassType,
  ActivityResultStatus,
  ActivityState,
  Alert,
  Asset,
  AuditEntry,
  CloudDrSession,
  ComplianceDetail,
  Copy,
  CopyLocation,
  CopyMetrics,
  InventorySource,
  LatestCopy,
  ProtectionPolicy,
  ProtectionStatus,
  StorageSystem,
} from './shapes';
import { complianceDetails, complianceHistory, inventorySourceView, policyView } from './views';

export type * from './shapes';

export interface AssetSpec {
  name?: string;
  type?: string;
  /** a policy id, or null for an unprotected asset; default: the first ACTIVE policy of the type (or of any type) */
  policyId?: string | null;
  size?: number;
  createdAt?: Date;
  deleted?: boolean;
}

/** The RPO settings the truth applies, as the exporter's `collection` section (in ms). */
export interface RpoObjectives {
  defaultRpoMs: number;
  /** by policy name or id */
  rpoByPolicy?: Readonly<Record<string, number>>;
}

export interface CopySpec {
  /** default: now */
  createTime?: Date;
  /** default: createTime plus the policy's PROTECTION retention (7 days without a policy) */
  retentionTime?: Date;
  location?: CopyLocation;
  size?: number;
  replicated?: boolean;
  copyType?: string;
  adhoc?: boolean;
}

export interface ActivitySpec {
  category?: string;
  subcategory?: string;
  classType?: ActivityClassType;
  name?: string;
  parentId?: string | null;
  assetId?: string;
  policyId?: string;
  /** default: now; not in the future */
  createTime?: Date;
  /** explicit timeline; a missing end means still running, a missing start still queued */
  startTime?: Date | null;
  endTime?: Date | null;
  /** shortcut when no times are given: where the activity stands now (default COMPLETED) */
  state?: ActivityState;
  /** result once completed (default OK) */
  resultStatus?: ActivityResultStatus;
  bytesTransferred?: number;
}

export interface TimeRange {
  /** inclusive */
  since?: Date;
  /** exclusive */
  until?: Date;
}

export class ManagementEstate {
  private added = 0;

  /** @internal the records behind the API; the HTTP layer serves from them */
  constructor(readonly state: EstateState) {}

  /** the clock's time when the estate was generated */
  get startTime(): Date {
    return new Date(this.state.startMs);
  }

  /** changes on every evolution step and mutation */
  get version(): number {
    return this.state.version;
  }

  private nowMs(): number {
    return this.state.clock.now().getTime();
  }

  // ---- truth -------------------------------------------------------------

  /** every asset the service lists, deleted ones included, in list order */
  assets(): Asset[] {
    return this.state.assets.map((a) => a.api);
  }

  asset(id: string): Asset | undefined {
    return this.state.assetById.get(id)?.api;
  }

  /** the copies the service currently lists for the asset (not yet deleted by the expiry job), oldest first */
  copies(assetId: string): Copy[] {
    const now = this.nowMs();
    return (this.state.assetById.get(assetId)?.copies ?? []).map((c) => renderCopy(c, now));
  }

  /** the asset's copies in a deletion state, listed beside its live copies (not part of copies()) */
  deletedCopies(assetId: string): Copy[] {
    const now = this.nowMs();
    return (this.state.assetById.get(assetId)?.deletedCopies ?? []).map((c) => renderCopy(c, now));
  }

  /** the asset's newest live copy, as latest-copies answers a filter that leaves deletion states out */
  latestCopy(assetId: string): LatestCopy | undefined {
    const asset = this.state.assetById.get(assetId);
    const newest = asset?.copies[asset.copies.length - 1];
    return newest ? { ...renderCopy(newest, this.nowMs()), assetId } : undefined;
  }

  copy(id: string): (Copy & { assetId: string }) | undefined {
    const c = this.state.copyById.get(id);
    return c ? { ...renderCopy(c, this.nowMs()), assetId: c.asset.api.id } : undefined;
  }

  copyCount(): number {
    return this.state.copyById.size;
  }

  copyMetrics(assetId: string): CopyMetrics | undefined {
    const asset = this.state.assetById.get(assetId);
    return asset ? copyMetricsOf(asset, this.nowMs()) : undefined;
  }

  /** activities created in the range (default: all), by createTime */
  activities(range: TimeRange = {}): Activity[] {
    const list = this.state.activities;
    const key = (i: number): number => (list[i] as ActivityRecord).createMs;
    const from = range.since ? lowerBound(list.length, key, range.since.getTime()) : 0;
    const to = range.until ? lowerBound(list.length, key, range.until.getTime()) : list.length;
    const now = this.nowMs();
    return list.slice(from, to).map((a) => renderActivity(a, now));
  }

  activity(id: string): Activity | undefined {
    const a = this.state.activityById.get(id);
    return a ? renderActivity(a, this.nowMs()) : undefined;
  }

  activityCount(): number {
    return this.state.activities.length;
  }

  /** audit entries whose changedTime is in the range (default: all; a million on a benchmark estate) */
  auditEntries(range: TimeRange = {}): AuditEntry[] {
    const audit = this.state.audit;
    const from = range.since ? audit.indexOfTime(range.since.getTime()) : 0;
    const to = range.until ? audit.indexOfTime(range.until.getTime()) : audit.length;
    const out: AuditEntry[] = [];
    for (let i = from; i < to; i++) out.push(audit.at(i));
    return out;
  }

  auditEntryCount(): number {
    return this.state.audit.length;
  }

  policies(): ProtectionPolicy[] {
    return this.state.policies.map((p) => policyView(this.state, p));
  }

  policy(id: string): ProtectionPolicy | undefined {
    const p = this.state.policies.find((x) => x.api.id === id);
    return p ? policyView(this.state, p) : undefined;
  }

  /**
   * The RPO the policy's PROTECTION schedule implies: one period plus the
   * backup window its schedule shows (a sub-daily schedule runs all day: plus
   * the spread of its assets' starts, a quarter period). null when the stage shows no schedule an
   * exporter can read (none, or an unknown frequency), for EXCLUDED policies
   * and unknown ids.
   */
  scheduleRpoMs(policyId: string): number | null {
    return this.state.policies.find((p) => p.api.id === policyId)?.scheduleRpoMs ?? null;
  }

  /**
   * The RPO that applies to a protected asset, first match wins: the policy's
   * entry in `objectives.rpoByPolicy` (by name, then id), what its schedule
   * implies, `objectives.defaultRpoMs`. undefined for an asset that is not protected.
   */
  assetRpoMs(assetId: string, objectives: RpoObjectives): number | undefined {
    const asset = this.state.assetById.get(assetId);
    const policy = asset?.policy;
    if (!asset || asset.api.deleted || asset.api.protectionStatus !== 'PROTECTED' || !policy) return undefined;
    const byPolicy = objectives.rpoByPolicy ?? {};
    if (Object.hasOwn(byPolicy, policy.api.name)) return byPolicy[policy.api.name];
    if (Object.hasOwn(byPolicy, policy.api.id)) return byPolicy[policy.api.id];
    return policy.scheduleRpoMs ?? objectives.defaultRpoMs;
  }

  /**
   * Whether a protected asset's newest copy (the newer of lastAvailableCopyTime
   * and its newest listed copy) is no older than its RPO (assetRpoMs) at
   * `atMs` (default: the simulated now). false without any copy; undefined for
   * an asset that is not protected.
   */
  withinRpo(assetId: string, objectives: RpoObjectives, atMs = this.nowMs()): boolean | undefined {
    const rpoMs = this.assetRpoMs(assetId, objectives);
    const asset = this.state.assetById.get(assetId);
    if (rpoMs === undefined || !asset) return undefined;
    const newestListed = asset.copies[asset.copies.length - 1]?.createMs ?? null;
    const newest = Math.max(asset.lastCopyMs ?? -Infinity, newestListed ?? -Infinity);
    return Number.isFinite(newest) && atMs - newest <= rpoMs;
  }

  /** the latest compliance result per asset and stage: the state the exporter reports */
  compliance(): ComplianceDetail[] {
    return complianceDetails(this.state);
  }

  /** every verification run compliance-details lists (history: several per asset and stage) */
  complianceHistory(): ComplianceDetail[] {
    return complianceHistory(this.state);
  }

  inventorySources(): InventorySource[] {
    const now = this.nowMs();
    return this.state.inventorySources.map((s) => inventorySourceView(s, now));
  }

  cloudDrSessions(): CloudDrSession[] {
    return this.state.cloudDrSessions.map((s) => ({ ...s }));
  }

  alerts(): Alert[] {
    return this.state.alerts.map((a) => structuredClone(a));
  }

  storageSystems(): StorageSystem[] {
    return this.state.storageSystems.map((s) => ({ ...s }));
  }

  // ---- mutators ------------------------------------------------------------

  /** sets what lastAvailableCopyTime reports and pins it: later copies no longer move it */
  setAssetLastCopy(assetId: string, time: Date | null): void {
    const asset = this.requireAsset(assetId);
    asset.pinned = true;
    asset.lastCopyMs = time === null ? null : time.getTime();
    asset.api.lastAvailableCopyTime = time === null ? null : time.toISOString();
    asset.api.updatedAt = new Date(Math.max(this.nowMs(), asset.createdMs)).toISOString();
    this.changed(false);
  }

  /** the asset disappears from the service, with its copies */
  removeAsset(id: string): boolean {
    const asset = this.state.assetById.get(id);
    if (!asset) return false;
    this.state.assetById.delete(id);
    this.state.assets.splice(this.state.assets.indexOf(asset), 1);
    for (const c of asset.copies) this.state.copyById.delete(c.id);
    this.changed(true);
    return true;
  }

  /** the asset answers as the products do without `expand`: its policy only in the top-level protectionPolicy */
  dropEmbeddedPolicy(id: string): void {
    const asset = this.requireAsset(id);
    asset.api._embedded = { protectionPolicy: null };
    this.changed(true);
  }

  setAssetDeleted(id: string, deleted: boolean): void {
    const asset = this.requireAsset(id);
    asset.api.deleted = deleted;
    asset.api.updatedAt = new Date(this.nowMs()).toISOString();
    asset.nextBackupMs = !deleted && asset.policy && asset.policy.periodMs > 0 ? nextBackupAfter(asset.policy, asset.phaseMs, this.nowMs()) : Infinity;
    this.changed(true);
  }

  addAsset(spec: AssetSpec = {}): Asset {
    const s = this.state;
    const now = this.nowMs();
    const ordinal = s.assets.reduce((max, a) => Math.max(max, a.ordinal), -1) + 1;
    const rng = s.random.fork(`added-asset/${ordinal}`);
    const type = spec.type ?? 'HV_VIRTUAL_MACHINE';
    const policy = this.policyFor(spec.policyId, type);
    const status: ProtectionStatus = !policy ? 'UNPROTECTED' : policy.api.type === 'EXCLUDED' ? 'EXCLUDED' : 'PROTECTED';
    const createdMs = spec.createdAt?.getTime() ?? now;
    const info = assetTypeInfo(type);
    const name = spec.name ?? `added-asset-${ordinal}`;
    const id = uuidFrom(rng);
    const protectionLifeCycleId = status === 'PROTECTED' ? uuidFrom(rng) : null;
    const deleted = spec.deleted ?? false;
    const nextBackupMs = status === 'PROTECTED' && policy && policy.periodMs > 0 && !deleted ? nextBackupAfter(policy, 0, now) : Infinity;
    const sizeBytes = spec.size ?? 100 * 1024 ** 3;
    const protectionEngine = info.protectionEngine;
    const asset = newAssetRecord(
      { id, name, type, status, policy, protectionEngine, createdMs, deleted, sizeBytes, credentialId: null, protectionLifeCycleId, details: {} },
      ordinal,
      { phaseMs: 0, nextBackupMs },
    );
    const api = asset.api;
    const at = lowerBound(s.assets.length, (i) => (s.assets[i] as AssetRecord).createdMs, createdMs, true);
    s.assets.splice(at, 0, asset);
    s.assetById.set(api.id, asset);
    this.changed(true);
    return api;
  }

  /** adds a copy to the asset; it moves lastAvailableCopyTime unless that is pinned */
  addCopy(assetId: string, spec: CopySpec = {}): Copy {
    const asset = this.requireAsset(assetId);
    const createMs = spec.createTime?.getTime() ?? this.nowMs();
    const policy = asset.policy;
    const copy: CopyRecord = makeCopy(this.state.random.fork(`added-copy/${this.added++}`), asset, policy, {
      createMs,
      retentionMs: spec.retentionTime?.getTime() ?? createMs + (policy?.retentionMs.PROTECTION ?? 7 * DAY_MS),
      replicated: spec.replicated ?? false,
      location: spec.location ?? 'LOCAL',
      tierAtMs: Infinity,
      storageSystemId: policy?.protectionStorageId ?? (this.state.storageSystems[0] as StorageSystem).id,
      ...(spec.adhoc !== undefined ? { adhoc: spec.adhoc } : {}),
      ...(spec.copyType !== undefined ? { copyType: spec.copyType } : {}),
      ...(spec.size !== undefined ? { size: spec.size } : {}),
    });
    attachCopy(this.state, copy);
    this.changed(false);
    return renderCopy(copy, this.nowMs());
  }

  removeCopy(copyId: string): boolean {
    const copy = this.state.copyById.get(copyId);
    if (!copy) return false;
    const asset = copy.asset;
    asset.copies.splice(asset.copies.indexOf(copy), 1);
    this.state.copyById.delete(copyId);
    asset.minRetentionMs = asset.copies.reduce((min, c) => Math.min(min, c.retentionMs), Infinity);
    if (!asset.pinned && asset.lastCopyMs === copy.createMs) {
      const newest = asset.copies[asset.copies.length - 1];
      setLastCopy(asset, newest ? newest.createMs : null, this.nowMs());
    }
    this.changed(false);
    return true;
  }

  addActivity(spec: ActivitySpec = {}): Activity {
    const now = this.nowMs();
    const createMs = spec.createTime?.getTime() ?? now;
    if (createMs > now) throw new RangeError('addActivity: createTime must not be in the future');
    const category = spec.category ?? 'PROTECT';
    const info = ACTIVITY_CATEGORIES.find((c) => c.category === category);
    const asset = spec.assetId ? this.requireAsset(spec.assetId) : undefined;
    const policy = spec.policyId ? this.state.policies.find((p) => p.api.id === spec.policyId) : (asset?.policy ?? undefined);
    const status = spec.resultStatus ?? 'OK';
    const record: ActivityRecord = {
      id: uuidFrom(this.state.random.fork(`added-activity/${this.added++}`)),
      name: spec.name ?? `${info?.label ?? category} ${asset?.api.name ?? ''}`.trim(),
      parentId: spec.parentId ?? null,
      category,
      subcategory: spec.subcategory ?? info?.subcategories[0] ?? 'MANUAL',
      classType: spec.classType ?? 'JOB',
      createMs,
      startMs: Infinity,
      endMs: Infinity,
      cancelMs: Infinity,
      status,
      bytes: spec.bytesTransferred ?? 0,
      preCompBytes: (spec.bytesTransferred ?? 0) * 4,
      asset: asset ? recordRef(asset) : null,
      policy: policy ? recordRef(policy) : null,
      errorIndex: status === 'FAILED' || status === 'OK_WITH_ERRORS' ? 0 : -1,
      failedJobs: status === 'FAILED' ? 1 : 0,
    };
    if (spec.startTime !== undefined || spec.endTime !== undefined) {
      record.startMs = spec.startTime ? spec.startTime.getTime() : Infinity;
      record.endMs = spec.endTime ? spec.endTime.getTime() : Infinity;
      if (record.startMs < createMs || record.endMs < record.startMs) throw new RangeError('addActivity: needs createTime <= startTime <= endTime');
    } else {
      retime(record, spec.state ?? 'COMPLETED', now);
    }
    addReleasedActivity(this.state, record);
    this.changed(false);
    return renderActivity(record, now);
  }

  /** moves an activity to `state` now (and sets its result when it completes) */
  setActivityState(id: string, state: ActivityState, resultStatus?: ActivityResultStatus): Activity {
    const record = this.state.activityById.get(id);
    if (!record) throw new RangeError(`no activity ${id}`);
    const now = this.nowMs();
    if (resultStatus) record.status = resultStatus;
    retime(record, state, now);
    this.state.maxActivitySpanMs = Math.max(this.state.maxActivitySpanMs, activitySpanMs(record));
    this.changed(false);
    return renderActivity(record, now);
  }

  /** adds an audit entry (default changedTime: now; not before the estate's start) */
  addAuditEntry(entry: Partial<AuditEntry> = {}): AuditEntry {
    const added = this.state.audit.add({ ...entry, changedTime: entry.changedTime ?? new Date(this.nowMs()).toISOString() });
    this.changed(false);
    return added;
  }

  addAlert(spec: Partial<Alert> = {}): Alert {
    const alert: Alert = {
      id: spec.id ?? uuidFrom(this.state.random.fork(`added-alert/${this.added++}`)),
      severity: spec.severity ?? 'WARNING',
      category: spec.category ?? 'System',
      message: spec.message ?? 'Simulated alert',
      postedTime: spec.postedTime ?? new Date(this.nowMs()).toISOString(),
      acknowledgement: spec.acknowledgement ?? { acknowledgeState: 'UNACKNOWLEDGED' },
    };
    const list = this.state.alerts;
    const ms = Date.parse(alert.postedTime);
    list.splice(lowerBound(list.length, (i) => Date.parse((list[i] as Alert).postedTime), ms, true), 0, alert);
    this.changed(false);
    return structuredClone(alert);
  }

  acknowledgeAlert(id: string, acknowledged = true): void {
    const alert = this.state.alerts.find((a) => a.id === id);
    if (!alert) throw new RangeError(`no alert ${id}`);
    alert.acknowledgement = { acknowledgeState: acknowledged ? 'ACKNOWLEDGED' : 'UNACKNOWLEDGED' };
    this.changed(false);
  }

  removeAlert(id: string): boolean {
    const at = this.state.alerts.findIndex((a) => a.id === id);
    if (at < 0) return false;
    this.state.alerts.splice(at, 1);
    this.changed(false);
    return true;
  }

  /** sets a source's last discovery outcome; `at` fixes lastDiscovered (default: keeps following the clock) */
  setInventorySourceDiscovery(id: string, result: { status: string; summaries?: string[]; at?: Date }): void {
    const source = this.state.inventorySources.find((s) => s.api.id === id);
    if (!source) throw new RangeError(`no inventory source ${id}`);
    source.api.lastDiscoveryResult = { status: result.status, summaries: result.summaries ?? [] };
    if (result.at) source.fixedDiscoveredMs = result.at.getTime();
    this.changed(false);
  }

  removeCloudDrSession(id: string): boolean {
    const at = this.state.cloudDrSessions.findIndex((s) => s.id === id);
    if (at < 0) return false;
    this.state.cloudDrSessions.splice(at, 1);
    this.changed(false);
    return true;
  }

  // ---- helpers ---------------------------------------------------------------

  private requireAsset(id: string): AssetRecord {
    const asset = this.state.assetById.get(id);
    if (!asset) throw new RangeError(`no asset ${id}`);
    return asset;
  }

  private policyFor(policyId: string | null | undefined, type: string): PolicyRecord | null {
    if (policyId === null) return null;
    const policies = this.state.policies;
    if (policyId !== undefined) {
      const found = policies.find((p) => p.api.id === policyId);
      if (!found) throw new RangeError(`no protection policy ${policyId}`);
      return found;
    }
    const active = policies.filter((p) => p.api.type === 'ACTIVE');
    return active.find((p) => p.api.assetType === type) ?? active[0] ?? null;
  }

  private changed(assets: boolean): void {
    this.state.version++;
    if (assets) this.state.assetsVersion++;
  }
}

/** rewrites an activity's timeline so that it is in `state` at `now` */
function retime(a: ActivityRecord, state: ActivityState, now: number): void {
  const startedBy = (): number => (Number.isFinite(a.startMs) && a.startMs <= now ? a.startMs : Math.max(a.createMs, now));
  switch (state) {
    case 'QUEUED':
      [a.startMs, a.endMs, a.cancelMs] = [Infinity, Infinity, Infinity];
      break;
    case 'RUNNING':
      [a.startMs, a.endMs, a.cancelMs] = [startedBy(), Infinity, Infinity];
      break;
    case 'PENDING_CANCELLATION':
      [a.startMs, a.endMs, a.cancelMs] = [startedBy(), Infinity, now];
      a.status = 'CANCELED';
      break;
    case 'COMPLETED':
      a.startMs = startedBy();
      a.endMs = now;
      if (a.cancelMs > now) a.cancelMs = Infinity;
      break;
  }
  if (activityState(a, now) !== state) throw new Error(`internal: retime to ${state} failed`);
}
