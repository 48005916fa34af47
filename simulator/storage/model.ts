import type { SimulatedClock } from '../core/clock';
import type { SeededRandom } from '../core/random';
import type { EstateSize } from '../types';

export type Tier = 'active' | 'cloud' | 'total';
export const TIERS: readonly Tier[] = ['active', 'cloud', 'total'];
export const ALERT_SEVERITIES = ['DEBUG', 'INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL', 'ALERT', 'EMERGENCY'] as const;

export interface StorageSystem {
  /** `hex:hex`; in URLs it is encoded as `hex%3Ahex` */
  id: string;
  name: string;
  version: string;
  serialno: string;
  model: string;
  uuid: string;
  bootEpoch: number;
  reachable: boolean;
}

export interface CapacityFigures {
  total: number;
  used: number;
  available: number;
}

/** One hourly capacity sample of one tier, in the API's shape (bytes as integers). */
export interface CapacitySample {
  tier: Tier;
  collection_epoch: number;
  physical_capacity: CapacityFigures;
  logical_capacity: CapacityFigures;
  compression_factor: number;
  data_written: { pre_comp_written: number; post_comp_written: number };
}

export interface StorageAlert {
  id: string;
  alert_id: string;
  name: string;
  msg: string;
  /** optional in the model: one active alert of the first system gives none */
  severity?: string;
  class: string;
  status: 'active' | 'cleared';
  alert_gen_epoch: number;
  clear_epoch?: number;
  /** a field the exporter does not know */
  additional_info: string;
}

export interface Mtree {
  /** the mtree's path; URL-encoded when used in a path */
  id: string;
  name: string;
  /** share of the system's active tier this mtree holds */
  share: number;
  compressionFactor: number;
}

export interface ReplicationContext {
  id: number;
  mode: 'SOURCE' | 'TARGET';
  state: string;
  enabled: boolean;
  connected: boolean;
  sourceMtreePath: string;
  destinationMtreePath: string;
  /** epoch seconds of the last sync; undefined = follows the clock with `lagSeconds` */
  frozenSyncEpoch?: number;
  /** lag of a healthy context, seconds */
  lagSeconds: number;
}

/** A context as the API returns it, with syncEpoch resolved at the clock's now. */
export interface ReplicationContextView {
  id: number;
  mode: string;
  state: string;
  enabled: boolean;
  connected: boolean;
  sourceMtreePath: string;
  destinationMtreePath: string;
  syncEpoch: number;
}

interface TierModel {
  /** physical capacity in bytes (0 for a system without a cloud tier) */
  total: number;
  /** used bytes at the start hour */
  usedAtStart: number;
  growthPerHour: number;
  compressionFactor: number;
  /** phase of the daily wobble (garbage collection frees some space) */
  phase: number;
}

interface SystemModel {
  system: StorageSystem;
  tiers: { active: TierModel; cloud: TierModel };
  alerts: StorageAlert[];
  nextAlertNumber: number;
  mtrees: Mtree[];
  contexts: ReplicationContext[];
}

const HOUR_S = 3600;
/** history kept before the start, and the most samples ever served */
const HISTORY_HOURS_BEFORE_START = 7 * 24;
const MAX_HISTORY_HOURS = 90 * 24;
const TiB = 1024 ** 4;

/**
 * The storage estate: appliances with hourly capacity samples per tier (a pure
 * function of the hour, so the same seed gives the same numbers however the
 * clock was advanced), alerts, mtrees and mtree replication contexts.
 */
export class StorageEstate {
  /** the management center itself (its /system resource) */
  readonly center: { name: string; version: string; serialno: string; model: string; uuid: string; bootEpoch: number };
  private readonly models: SystemModel[] = [];
  private readonly startHour: number;

  /** forks its own stream 'storage' from `random`, so other estates never shift it */
  constructor(
    random: SeededRandom,
    size: Pick<EstateSize, 'storageSystems'>,
    private readonly clock: SimulatedClock,
  ) {
    const r = random.fork('storage');
    const nowSec = Math.floor(clock.now().getTime() / 1000);
    this.startHour = Math.floor(nowSec / HOUR_S);
    this.center = {
      name: 'ddmc-01.example.com',
      version: '7.13.1.0-1085720',
      serialno: `VDMC${r.int(10_000_000, 99_999_999)}`,
      model: 'DDMC',
      uuid: systemUuid(r),
      bootEpoch: nowSec - r.int(2, 90) * 86_400,
    };
    const count = Math.max(0, Math.floor(size.storageSystems));
    for (let i = 0; i < count; i++) this.models.push(this.generateSystem(r.fork(`system/${i}`), i, nowSec));
  }

  get systems(): readonly Readonly<StorageSystem>[] {
    return this.models.map((m) => m.system);
  }

  /** by id (decoded `hex:hex`) */
  system(id: string): Readonly<StorageSystem> | undefined {
    return this.models.find((m) => m.system.id === id)?.system;
  }

  centerUptimeSeconds(): number {
    return Math.max(0, this.nowSec() - this.center.bootEpoch);
  }

  uptimeSeconds(systemId: string): number {
    return Math.max(0, this.nowSec() - this.model(systemId).system.bootEpoch);
  }

  /** epoch of the newest sample (the last whole hour at or before now) */
  newestSampleEpoch(): number {
    return Math.floor(this.nowSec() / HOUR_S) * HOUR_S;
  }

  /** the collection_epoch of every sample the API holds now, oldest first */
  sampleEpochs(): number[] {
    const last = Math.floor(this.nowSec() / HOUR_S);
    const first = Math.max(this.startHour - HISTORY_HOURS_BEFORE_START, last - MAX_HISTORY_HOURS + 1);
    const epochs: number[] = [];
    for (let h = first; h <= last; h++) epochs.push(h * HOUR_S);
    return epochs;
  }

  /** the newest capacity sample of a tier: what `sort=-collection_epoch&size=1` returns */
  newestCapacity(systemId: string, tier: Tier): CapacitySample {
    return this.capacityAt(systemId, tier, this.newestSampleEpoch());
  }

  capacityAt(systemId: string, tier: Tier, epoch: number): CapacitySample {
    const m = this.model(systemId);
    const hour = Math.floor(epoch / HOUR_S);
    if (tier !== 'total') return tierSample(tier, m.tiers[tier], hour - this.startHour, hour);
    const active = tierSample('active', m.tiers.active, hour - this.startHour, hour);
    const cloud = tierSample('cloud', m.tiers.cloud, hour - this.startHour, hour);
    const sum = (a: CapacityFigures, b: CapacityFigures): CapacityFigures => ({
      total: a.total + b.total,
      used: a.used + b.used,
      available: a.available + b.available,
    });
    const physical = sum(active.physical_capacity, cloud.physical_capacity);
    const logical = sum(active.logical_capacity, cloud.logical_capacity);
    return {
      tier,
      collection_epoch: hour * HOUR_S,
      physical_capacity: physical,
      logical_capacity: logical,
      compression_factor: ratio(logical.used, physical.used),
      data_written: {
        pre_comp_written: active.data_written.pre_comp_written + cloud.data_written.pre_comp_written,
        post_comp_written: active.data_written.post_comp_written + cloud.data_written.post_comp_written,
      },
    };
  }

  alerts(systemId: string): readonly Readonly<StorageAlert>[] {
    return this.model(systemId).alerts;
  }

  activeAlerts(systemId: string): readonly Readonly<StorageAlert>[] {
    return this.model(systemId).alerts.filter((a) => a.status === 'active');
  }

  /** raises a new active alert now (unless `status`/`alert_gen_epoch` say otherwise); returns it */
  addAlert(systemId: string, alert: Partial<StorageAlert> & Pick<StorageAlert, 'severity' | 'class'>): Readonly<StorageAlert> {
    const m = this.model(systemId);
    const number = m.nextAlertNumber++;
    const full: StorageAlert = {
      id: String(number),
      alert_id: `m0-${number}`,
      name: 'EVT-TEST-00001',
      msg: 'Alert raised by a test.',
      status: 'active',
      alert_gen_epoch: this.nowSec(),
      additional_info: '',
      ...alert,
    };
    m.alerts.push(full);
    return full;
  }

  /** clears an active alert (it stays listed with status cleared) */
  clearAlert(systemId: string, alertId: string): void {
    const alert = this.model(systemId).alerts.find((a) => a.id === alertId);
    if (!alert) throw new Error(`no alert ${alertId} on ${systemId}`);
    alert.status = 'cleared';
    alert.clear_epoch = this.nowSec();
  }

  mtrees(systemId: string): readonly Readonly<Mtree>[] {
    return this.model(systemId).mtrees;
  }

  /** an mtree's newest capacity figures: its share of the active tier */
  mtreeCapacityAt(systemId: string, mtreeId: string, epoch: number): { collection_epoch: number; physical_used: number; logical_used: number; compression_factor: number } | undefined {
    const mtree = this.model(systemId).mtrees.find((t) => t.id === mtreeId);
    if (!mtree) return undefined;
    const active = this.capacityAt(systemId, 'active', epoch);
    const physicalUsed = Math.round(active.physical_capacity.used * mtree.share);
    const logicalUsed = Math.round(physicalUsed * mtree.compressionFactor);
    return { collection_epoch: active.collection_epoch, physical_used: physicalUsed, logical_used: logicalUsed, compression_factor: ratio(logicalUsed, physicalUsed) };
  }

  /** the contexts as the API returns them now */
  contexts(systemId: string): ReplicationContextView[] {
    const now = this.nowSec();
    return this.model(systemId).contexts.map((c) => ({
      id: c.id,
      mode: c.mode,
      state: c.state,
      enabled: c.enabled,
      connected: c.connected,
      sourceMtreePath: c.sourceMtreePath,
      destinationMtreePath: c.destinationMtreePath,
      syncEpoch: c.frozenSyncEpoch ?? now - c.lagSeconds,
    }));
  }

  /** any string, so tests can inject a state the exporter does not know */
  setContextState(systemId: string, contextId: number, state: string): void {
    this.context(systemId, contextId).state = state;
  }

  /** a number freezes the last sync at that epoch (the lag grows with the clock); undefined makes it follow the clock again */
  setContextSyncEpoch(systemId: string, contextId: number, epochSeconds: number | undefined): void {
    this.context(systemId, contextId).frozenSyncEpoch = epochSeconds;
  }

  /** an unreachable system makes the management center answer 503 for it (and its appliance answers 503) */
  setSystemReachable(systemId: string, reachable: boolean): void {
    this.model(systemId).system.reachable = reachable;
  }

  private nowSec(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  private model(systemId: string): SystemModel {
    const m = this.models.find((x) => x.system.id === systemId);
    if (!m) throw new Error(`no storage system ${systemId}`);
    return m;
  }

  private context(systemId: string, contextId: number): ReplicationContext {
    const c = this.model(systemId).contexts.find((x) => x.id === contextId);
    if (!c) throw new Error(`no replication context ${contextId} on ${systemId}`);
    return c;
  }

  private generateSystem(r: SeededRandom, index: number, nowSec: number): SystemModel {
    const site = SITES[index % SITES.length] as string;
    const name = `dd-${site}-${String(Math.floor(index / SITES.length) + 1).padStart(2, '0')}.example.com`;
    const [model, activeTiB] = r.pick(MODELS);
    const id = systemUuid(r);
    const system: StorageSystem = {
      id,
      name,
      version: r.pick(['7.10.1.0-1016743', '7.11.0.0-1035436', '7.13.0.10-1076251', '8.1.0.0-1103417']),
      serialno: `APM00${r.int(100_000_000, 999_999_999)}`,
      model,
      uuid: id,
      bootEpoch: nowSec - r.int(1, 400) * 86_400 - r.int(0, 86_399),
      reachable: true,
    };
    const activeTotal = activeTiB * TiB;
    const active: TierModel = {
      total: activeTotal,
      usedAtStart: Math.round(activeTotal * (0.35 + r.next() * 0.45)),
      growthPerHour: Math.round(activeTotal * (0.00002 + r.next() * 0.0001)),
      compressionFactor: 8 + r.next() * 30,
      phase: r.next() * 24,
    };
    // The second system has no cloud tier: all its cloud figures are 0.
    const hasCloud = index !== 1;
    const cloudTotal = hasCloud ? r.int(2, 20) * 10 * TiB : 0;
    const cloud: TierModel = {
      total: cloudTotal,
      usedAtStart: Math.round(cloudTotal * (0.1 + r.next() * 0.5)),
      growthPerHour: Math.round(cloudTotal * (0.00001 + r.next() * 0.00005)),
      compressionFactor: hasCloud ? 10 + r.next() * 20 : 0,
      phase: r.next() * 24,
    };

    const mtrees: Mtree[] = [];
    const mtreeCount = r.int(3, 8);
    let remaining = 1;
    for (let t = 0; t < mtreeCount; t++) {
      const share = t === mtreeCount - 1 ? remaining : remaining * (0.2 + r.next() * 0.4);
      remaining -= share;
      const mtreeName = `/data/col1/${r.pick(MTREE_PURPOSES)}-${String(t + 1).padStart(2, '0')}`;
      mtrees.push({ id: mtreeName, name: mtreeName, share, compressionFactor: 5 + r.next() * 40 });
    }

    const contexts: ReplicationContext[] = [];
    const contextCount = r.int(2, 4);
    for (let c = 0; c < contextCount; c++) {
      const mtree = mtrees[c % mtrees.length] as Mtree;
      const mode = c % 3 === 2 ? 'TARGET' : 'SOURCE';
      const peer = `dd-${r.pick(SITES)}-dr.example.com`;
      const local = `mtree://${name}${mtree.name}`;
      const remote = `mtree://${peer}${mtree.name}-repl`;
      // The second context of every system lags: its last sync is hours old and gets older.
      const lagging = c === 1;
      const state = c === 2 ? r.pick(['RESYNCING', 'INITIALIZING', 'CONNECTING'] as const) : 'NORMAL';
      contexts.push({
        id: c + 1,
        mode,
        state,
        enabled: true,
        connected: state !== 'CONNECTING',
        sourceMtreePath: mode === 'SOURCE' ? local : remote,
        destinationMtreePath: mode === 'SOURCE' ? remote : local,
        frozenSyncEpoch: lagging ? nowSec - r.int(3, 30) * HOUR_S : undefined,
        lagSeconds: r.int(30, 900),
      });
    }

    const m: SystemModel = { system, tiers: { active, cloud }, alerts: [], nextAlertNumber: 1, mtrees, contexts };
    this.generateAlerts(r, m, index, nowSec);
    return m;
  }

  /** the first system has one active alert of every severity (and one without), so every severity is always represented */
  private generateAlerts(r: SeededRandom, m: SystemModel, index: number, nowSec: number): void {
    const severities: string[] = index === 0 ? [...ALERT_SEVERITIES] : [];
    const extraActive = r.int(0, 4);
    for (let i = 0; i < extraActive; i++) severities.push(r.pick(['WARNING', 'WARNING', 'ERROR', 'CRITICAL', 'INFO']));
    for (const severity of severities) {
      const [alertClass, name, msg] = r.pick(ALERT_TEMPLATES);
      this.pushAlert(m, { severity, class: alertClass, name, msg, status: 'active', alert_gen_epoch: nowSec - r.int(60, 10 * 86_400) });
    }
    if (index === 0) {
      const [alertClass, name, msg] = ALERT_TEMPLATES[0] as (typeof ALERT_TEMPLATES)[number];
      this.pushAlert(m, { class: alertClass, name, msg, status: 'active', alert_gen_epoch: nowSec - 3600 });
    }
    const cleared = r.int(3, 12);
    for (let i = 0; i < cleared; i++) {
      const [alertClass, name, msg] = r.pick(ALERT_TEMPLATES);
      const raised = nowSec - r.int(86_400, 30 * 86_400);
      this.pushAlert(m, {
        severity: r.pick(ALERT_SEVERITIES),
        class: alertClass,
        name,
        msg,
        status: 'cleared',
        alert_gen_epoch: raised,
        clear_epoch: raised + r.int(600, 86_400),
      });
    }
  }

  private pushAlert(m: SystemModel, alert: Omit<StorageAlert, 'id' | 'alert_id' | 'additional_info'>): void {
    const number = m.nextAlertNumber++;
    m.alerts.push({ id: String(number), alert_id: `m0-${number}`, additional_info: 'simulated', ...alert });
  }
}

/**
 * One tier at hour offset `dh` from the start: linear growth plus a small daily
 * wobble (cleaning frees space), kept between 1% and 98% of the total.
 */
function tierSample(tier: Tier, t: TierModel, dh: number, hour: number): CapacitySample {
  if (t.total === 0) {
    const zero = { total: 0, used: 0, available: 0 };
    return { tier, collection_epoch: hour * HOUR_S, physical_capacity: zero, logical_capacity: { ...zero }, compression_factor: 0, data_written: { pre_comp_written: 0, post_comp_written: 0 } };
  }
  const wobble = t.growthPerHour * 4 * Math.sin(((hour + t.phase) / 24) * 2 * Math.PI);
  const raw = t.usedAtStart + t.growthPerHour * dh + wobble;
  const used = Math.round(Math.min(t.total * 0.98, Math.max(t.total * 0.01, raw)));
  const factor = t.compressionFactor * (1 + 0.02 * Math.sin(hour / 7));
  const logicalUsed = Math.round(used * factor);
  const logicalTotal = Math.round(t.total * factor);
  const postCompWritten = Math.max(0, Math.round(t.growthPerHour * (1.5 + Math.sin(hour / 3))));
  return {
    tier,
    collection_epoch: hour * HOUR_S,
    physical_capacity: { total: t.total, used, available: t.total - used },
    logical_capacity: { total: logicalTotal, used: logicalUsed, available: logicalTotal - logicalUsed },
    compression_factor: ratio(logicalUsed, used),
    data_written: { pre_comp_written: Math.round(postCompWritten * factor), post_comp_written: postCompWritten },
  };
}

/** logical / physical, two decimals, 0 when nothing is stored */
function ratio(logical: number, physical: number): number {
  return physical > 0 ? Math.round((logical / physical) * 100) / 100 : 0;
}

function systemUuid(r: SeededRandom): string {
  const hex16 = () => {
    let s = '';
    for (let i = 0; i < 16; i++) s += r.int(0, 15).toString(16);
    return s;
  };
  return `${hex16()}:${hex16()}`;
}

const SITES = ['fra', 'ams', 'lon', 'par', 'mad', 'mil', 'dub', 'sto'];
const MODELS: ReadonlyArray<readonly [string, number]> = [
  ['DD6900', 288],
  ['DD9400', 768],
  ['DD9900', 1536],
  ['DDVE', 96],
];
const MTREE_PURPOSES = ['backup', 'vm-images', 'sql-logs', 'oracle', 'nas', 'archive', 'k8s'];
const ALERT_TEMPLATES: ReadonlyArray<readonly [string, string, string]> = [
  ['Filesystem', 'EVT-SPACE-00004', 'Space usage in Data Collection has exceeded 90% threshold.'],
  ['Filesystem', 'EVT-FILESYS-00008', 'File system cleaning has not run in 14 days.'],
  ['HardwareFailure', 'EVT-ENVIRONMENT-00056', 'Power supply 2 in enclosure 1 has failed.'],
  ['HardwareFailure', 'EVT-STORAGE-00002', 'Disk 2.14 has failed.'],
  ['Replication', 'EVT-REPL-00016', 'Replication context lag exceeds the threshold.'],
  ['Replication', 'EVT-REPL-00021', 'Replication destination is unreachable.'],
  ['Network', 'EVT-NET-00003', 'Network link ethV2 is down.'],
  ['Security', 'EVT-SECURITY-00034', 'Certificate for host expires in 14 days.'],
  ['Cloud', 'EVT-CLOUD-00005', 'Cloud unit is not reachable.'],
  ['SystemMaintenance', 'EVT-UPGRADE-00011', 'A software upgrade is available.'],
];
