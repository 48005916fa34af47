/**
 * The management estate as tests see it through its truth accessors: what is
 * generated, that it is deterministic (also across different ways of moving
 * the clock), how it evolves, and the mutators that set up scenarios.
 */
import { SimulatedClock } from '../../simulator/core/clock';
import { SeededRandom } from '../../simulator/core/random';
import { createManagementEstate, type ManagementEstate } from '../../simulator/management';
import { DEFAULT_ESTATE_SIZE, type EstateSize } from '../../simulator/types';

const START = new Date('2026-11-20T10:30:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function make(seed = 11, size: Partial<EstateSize> = {}, start = START): { estate: ManagementEstate; clock: SimulatedClock } {
  const clock = new SimulatedClock(start);
  const estate = createManagementEstate(new SeededRandom(seed), { ...DEFAULT_ESTATE_SIZE, ...size }, clock);
  return { estate, clock };
}

/** everything observable, for equality checks */
function snapshot(estate: ManagementEstate): string {
  return JSON.stringify({
    assets: estate.assets(),
    copies: estate.assets().map((a) => estate.copies(a.id)),
    metrics: estate.assets().map((a) => estate.copyMetrics(a.id)),
    activities: estate.activities(),
    audit: estate.auditEntries(),
    policies: estate.policies(),
    compliance: estate.compliance(),
    sources: estate.inventorySources(),
    alerts: estate.alerts(),
    dr: estate.cloudDrSessions(),
    storage: estate.storageSystems(),
  });
}

describe('generation', () => {
  const { estate } = make();
  const assets = estate.assets();
  const now = START.getTime();

  it('has the sizes asked for', () => {
    expect(assets).toHaveLength(DEFAULT_ESTATE_SIZE.assets);
    expect(estate.policies()).toHaveLength(DEFAULT_ESTATE_SIZE.protectionPolicies);
    expect(estate.auditEntryCount()).toBe(DEFAULT_ESTATE_SIZE.auditEntries);
    const perAsset = estate.copyCount() / assets.length;
    expect(perAsset).toBeGreaterThan(DEFAULT_ESTATE_SIZE.copiesPerAsset * 0.7);
    expect(perAsset).toBeLessThan(DEFAULT_ESTATE_SIZE.copiesPerAsset * 1.5);
    const withoutCopy = assets.filter((a) => estate.copies(a.id).length === 0).length / assets.length;
    expect(withoutCopy).toBeGreaterThan(0);
    expect(withoutCopy).toBeLessThan(DEFAULT_ESTATE_SIZE.assetsWithoutCopyShare * 3);
    // two days of history at activitiesPerDay
    const activities = estate.activities();
    expect(activities.length).toBeGreaterThan(DEFAULT_ESTATE_SIZE.activitiesPerDay * 2 * 0.85);
    expect(activities.length).toBeLessThan(DEFAULT_ESTATE_SIZE.activitiesPerDay * 2 * 1.15);
    expect(Date.parse((activities[0] as { createTime: string }).createTime)).toBeGreaterThanOrEqual(now - 2 * DAY);
  });

  it('has the variety the exporter must cope with', () => {
    expect(new Set(assets.map((a) => a.protectionStatus))).toEqual(new Set(['PROTECTED', 'UNPROTECTED', 'EXCLUDED']));
    expect(new Set(assets.map((a) => a.type)).size).toBeGreaterThanOrEqual(5);
    expect(assets.some((a) => a.deleted)).toBe(true);
    for (const pattern of [/"/, /\\/, / /, /[^ -~]/]) expect(assets.some((a) => pattern.test(a.name))).toBe(true);
    const vm = assets.find((a) => a.type === 'HV_VIRTUAL_MACHINE') as (typeof assets)[number];
    expect(vm.details.vm).toMatchObject({ guestOS: expect.any(String), disks: expect.any(Array), datastore: expect.any(Array), protectedApplication: 'NONE' });
    expect(vm.size).toBe((vm.details.vm?.disks ?? []).reduce((s, d) => s + d.sizeInBytes, 0));

    const copies = assets.flatMap((a) => estate.copies(a.id));
    // the model leaves location and size optional: a few copies leave them out
    expect(new Set(copies.map((c) => c.location))).toEqual(new Set(['LOCAL', 'CLOUD', 'LOCAL_RECALLED', 'STORAGEARRAY', undefined]));
    expect(copies.some((c) => c.size === undefined)).toBe(true);
    expect(copies.some((c) => Date.parse(c.retentionTime) <= now)).toBe(true);
    expect(copies.some((c) => c.replicatedCopy)).toBe(true);

    // lagging servers: copies exist but lastAvailableCopyTime is null, or older than the newest copy
    expect(assets.some((a) => a.lastAvailableCopyTime === null && estate.copies(a.id).length > 0)).toBe(true);
    expect(assets.some((a) => a.lastAvailableCopyTime !== null && Date.parse(a.lastAvailableCopyTime) < Date.parse(estate.latestCopy(a.id)?.createTime ?? ''))).toBe(true);

    const policies = estate.policies();
    expect(policies.filter((p) => p.type === 'EXCLUDED')).toHaveLength(1);
    expect(new Set(policies.flatMap((p) => p.stages.map((s) => s.type)))).toEqual(new Set(['PROTECTION', 'REPLICATION', 'CLOUD_TIER']));
    for (const p of policies.filter((x) => x.type === 'ACTIVE')) {
      expect(p.enabled).toBe(true);
      expect(p.stages[0]?.operations[0]?.schedule).toMatchObject({ frequency: expect.any(String), interval: expect.any(Number) });
      expect(p.summary.numberOfAssets).toBe(assets.filter((a) => !a.deleted && a.protectionPolicyId === p.id).length);
    }

    const activities = estate.activities();
    expect(new Set(activities.map((a) => a.classType))).toEqual(new Set(['JOB_GROUP', 'JOB', 'TASK']));
    expect(new Set(activities.map((a) => a.category)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(activities.filter((a) => a.state === 'COMPLETED').map((a) => a.result.status))).toEqual(new Set(['OK', 'OK_WITH_ERRORS', 'FAILED', 'CANCELED', 'SKIPPED']));
    const byId = new Map(activities.map((a) => [a.id, a]));
    for (const task of activities.filter((a) => a.classType === 'TASK')) expect(byId.get(task.parentId ?? '')?.classType).toBe('JOB');
    for (const a of activities.filter((x) => x.state === 'COMPLETED')) {
      expect(a.duration).toBe(Date.parse(a.endTime ?? '') - Date.parse(a.startTime ?? ''));
      expect(a.updateTime).toBe(a.endTime);
    }

    expect(new Set(estate.auditEntries().map((e) => e.auditType)).size).toBe(13);
    const audit = estate.auditEntries();
    expect(Date.parse((audit[0] as { changedTime: string }).changedTime)).toBeGreaterThanOrEqual(now - 7 * DAY);
    expect(Date.parse((audit.at(-1) as { changedTime: string }).changedTime)).toBeLessThan(now);
    expect(estate.inventorySources().some((s) => s.lastDiscoveryResult !== null && s.lastDiscoveryResult.status !== 'OK')).toBe(true);
    // and the newest alert without a severity (only id is required by the model)
    expect(new Set(estate.alerts().map((a) => a.severity))).toEqual(new Set(['CRITICAL', 'WARNING', 'INFORMATIONAL', undefined]));
    expect(new Set(estate.alerts().map((a) => a.acknowledgement.acknowledgeState))).toEqual(new Set(['ACKNOWLEDGED', 'UNACKNOWLEDGED']));
    expect(new Set(estate.compliance().map((c) => c.status)).has('SUCCEEDED')).toBe(true);
  });

  it('copy-metrics count each copy once under its stage', () => {
    for (const asset of assets.slice(0, 60)) {
      const metrics = estate.copyMetrics(asset.id);
      const copies = estate.copies(asset.id);
      expect(metrics?.totalNumbers).toBe(copies.length);
      if (copies.some((c) => c.location === undefined)) continue; // its stage is not told by what the copy shows
      for (const stage of metrics?.stageCopyMetrics ?? []) {
        const mine = copies.filter((c) => (stage.stageType === 'REPLICATION' ? c.replicatedCopy : stage.stageType === 'CLOUD_TIER' ? !c.replicatedCopy && c.location !== 'LOCAL' && c.location !== 'STORAGEARRAY' : !c.replicatedCopy && (c.location === 'LOCAL' || c.location === 'STORAGEARRAY')));
        expect(stage.copyCount).toBe(mine.length);
        expect(stage.latestCopyTime).toBe(mine.at(-1)?.createTime);
        expect(stage.oldestCopyTime).toBe(mine[0]?.createTime);
      }
    }
  });
});

describe('determinism', () => {
  it('the same seed and sizes give the same estate; another seed another one', () => {
    expect(snapshot(make(5).estate)).toBe(snapshot(make(5).estate));
    expect(make(6).estate.assets()[0]?.id).not.toBe(make(5).estate.assets()[0]?.id);
  });

  it('the same clock end point gives the same estate however the clock got there', () => {
    const once = make(5);
    once.clock.advance(30 * HOUR + 17 * 60_000);
    const steps = make(5);
    const parts = [1, 59_999, HOUR, 7 * HOUR, 20 * 60_000, 13 * HOUR, 0];
    parts.push(30 * HOUR + 17 * 60_000 - parts.reduce((a, b) => a + b, 0));
    for (const ms of parts) steps.clock.advance(ms);
    expect(steps.clock.now()).toEqual(once.clock.now());
    expect(snapshot(steps.estate)).toBe(snapshot(once.estate));
  });
});

describe('evolution', () => {
  it('protected assets get a copy per schedule period; lastAvailableCopyTime follows unless it lags', () => {
    const { estate, clock } = make(3);
    const lagging = new Map<string, string | null>();
    for (const a of estate.assets()) {
      const newest = estate.latestCopy(a.id)?.createTime;
      if (newest && a.lastAvailableCopyTime !== newest) lagging.set(a.id, a.lastAvailableCopyTime);
    }
    expect([...lagging.values()].filter((v) => v === null).length).toBeGreaterThan(0);
    expect([...lagging.values()].filter((v) => v !== null).length).toBeGreaterThan(0);
    const deletedCopies = new Map(estate.assets().filter((a) => a.deleted).map((a) => [a.id, estate.copies(a.id).length]));

    // one day: no copy made in it can have expired yet (retention is at least a day)
    clock.advance(DAY);
    const periods = new Map(
      estate.policies().map((p) => {
        const schedule = p.stages[0]?.operations[0]?.schedule;
        const unit = ({ MINUTELY: 60_000, HOURLY: HOUR, WEEKLY: 7 * DAY } as Record<string, number>)[schedule?.frequency ?? ''] ?? DAY;
        return [p.id, (schedule?.interval ?? 0) * unit];
      }),
    );
    let following = 0;
    for (const asset of estate.assets()) {
      if (asset.deleted) {
        expect(estate.copies(asset.id).length).toBeLessThanOrEqual(deletedCopies.get(asset.id) ?? 0);
        continue;
      }
      if (asset.protectionStatus !== 'PROTECTED' || !asset.protectionPolicyId) continue;
      const period = periods.get(asset.protectionPolicyId) as number;
      const fresh = estate.copies(asset.id).filter((c) => !c.replicatedCopy && Date.parse(c.createTime) > START.getTime());
      expect(fresh.length).toBeGreaterThanOrEqual(Math.floor(DAY / period));
      expect(fresh.length).toBeLessThanOrEqual(Math.ceil(DAY / period));
      for (let i = 1; i < fresh.length; i++) expect(Date.parse(fresh[i]?.createTime ?? '') - Date.parse(fresh[i - 1]?.createTime ?? '')).toBe(period);
      if (lagging.has(asset.id)) {
        expect(asset.lastAvailableCopyTime).toBe(lagging.get(asset.id));
      } else if (fresh.length > 0) {
        expect(asset.lastAvailableCopyTime).toBe(estate.latestCopy(asset.id)?.createTime);
        expect(asset.updatedAt).toBe(asset.lastAvailableCopyTime);
        following++;
      }
    }
    expect(following).toBeGreaterThan(100);
  });

  it('the daily expiry job deletes copies past retention', () => {
    const { estate, clock } = make(3);
    const expiring = estate.assets().flatMap((a) => estate.copies(a.id)).filter((c) => Date.parse(c.retentionTime) <= START.getTime());
    expect(expiring.length).toBeGreaterThan(0);
    clock.advance(DAY);
    const lastRun = Math.floor((clock.now().getTime() - 2 * HOUR) / DAY) * DAY + 2 * HOUR;
    const remaining = estate.assets().flatMap((a) => estate.copies(a.id));
    expect(remaining.filter((c) => Date.parse(c.retentionTime) <= lastRun)).toEqual([]);
    for (const c of expiring) expect(estate.copy(c.id)).toBeUndefined();
  });

  it('activities appear at the daily rate and move QUEUED → RUNNING → COMPLETED, updateTime following', () => {
    const { estate, clock } = make(4, { activitiesPerDay: 2400 });
    const initial = estate.activityCount();
    const open = estate.activities().filter((a) => a.state !== 'COMPLETED');
    expect(open.length).toBeGreaterThan(0);
    const seenStates = new Map<string, string[]>();
    for (let i = 0; i < 24 * 4; i++) {
      clock.advance(15 * 60_000);
      for (const a of open) {
        const now = estate.activity(a.id);
        const states = seenStates.get(a.id) ?? [a.state];
        if (now && states.at(-1) !== now.state) states.push(now.state);
        seenStates.set(a.id, states);
      }
    }
    const order = ['QUEUED', 'RUNNING', 'PENDING_CANCELLATION', 'COMPLETED'];
    for (const states of seenStates.values()) {
      expect(states.at(-1)).toBe('COMPLETED');
      expect(states.map((s) => order.indexOf(s))).toEqual([...states.map((s) => order.indexOf(s))].sort((x, y) => x - y));
    }
    const created = estate.activityCount() - initial;
    expect(created).toBeGreaterThan(2400 * 0.85);
    expect(created).toBeLessThan(2400 * 1.15);
    for (const a of open) {
      const done = estate.activity(a.id);
      expect(done?.updateTime).toBe(done?.endTime);
      expect(Date.parse(done?.updateTime ?? '')).toBeGreaterThan(Date.parse(a.updateTime));
    }
  });

  it('audit entries arrive at the daily rate; old activities are purged after a week', () => {
    const { estate, clock } = make(4, { auditEntriesPerDay: 480, activitiesPerDay: 240 });
    clock.advance(DAY);
    const fresh = estate.auditEntries({ since: START });
    expect(fresh.length).toBeGreaterThan(480 * 0.85);
    expect(fresh.length).toBeLessThan(480 * 1.15);
    expect(estate.auditEntryCount()).toBe(DEFAULT_ESTATE_SIZE.auditEntries + fresh.length);
    const times = estate.auditEntries().map((e) => Date.parse(e.changedTime));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    clock.advance(8 * DAY);
    const oldest = Date.parse((estate.activities()[0] as { createTime: string }).createTime);
    expect(oldest).toBeGreaterThanOrEqual(clock.now().getTime() - 7 * DAY - HOUR);
  });
});

describe('mutators', () => {
  it('setAssetLastCopy pins lastAvailableCopyTime; addCopy/removeCopy move it otherwise', () => {
    const { estate, clock } = make(8);
    const [pinned, free] = estate.assets().filter((a) => a.protectionStatus === 'PROTECTED' && !a.deleted && a.lastAvailableCopyTime !== null);
    if (!pinned || !free) throw new Error('estate without two protected assets');
    const twoDaysAgo = new Date(START.getTime() - 2 * DAY);
    estate.setAssetLastCopy(pinned.id, twoDaysAgo);
    estate.setAssetLastCopy(free.id, null);
    expect(estate.asset(pinned.id)?.lastAvailableCopyTime).toBe(twoDaysAgo.toISOString());
    clock.advance(2 * DAY);
    expect(estate.asset(pinned.id)?.lastAvailableCopyTime).toBe(twoDaysAgo.toISOString());
    expect(estate.asset(free.id)?.lastAvailableCopyTime).toBeNull();

    const other = estate.assets().find((a) => a.protectionStatus === 'PROTECTED' && !a.deleted && a.id !== pinned.id && a.id !== free.id && a.lastAvailableCopyTime !== null) as { id: string };
    const copy = estate.addCopy(other.id, { location: 'CLOUD', size: 1234 });
    expect(estate.asset(other.id)?.lastAvailableCopyTime).toBe(copy.createTime);
    expect(estate.latestCopy(other.id)).toMatchObject({ id: copy.id, location: 'CLOUD', size: 1234, assetId: other.id });
    expect(estate.removeCopy(copy.id)).toBe(true);
    expect(estate.asset(other.id)?.lastAvailableCopyTime).not.toBe(copy.createTime);
  });

  it('removeAsset takes the asset and its copies away; addAsset adds one that gets copies', () => {
    const { estate, clock } = make(8);
    const victim = estate.assets().find((a) => estate.copies(a.id).length > 0) as { id: string };
    const copyIds = estate.copies(victim.id).map((c) => c.id);
    const count = estate.copyCount();
    expect(estate.removeAsset(victim.id)).toBe(true);
    expect(estate.asset(victim.id)).toBeUndefined();
    expect(estate.copyCount()).toBe(count - copyIds.length);
    for (const id of copyIds) expect(estate.copy(id)).toBeUndefined();

    const added = estate.addAsset({ name: 'new "vm" ü' });
    expect(estate.assets().at(-1)).toEqual(added);
    expect(added.protectionStatus).toBe('PROTECTED');
    clock.advance(8 * DAY);
    expect(estate.copies(added.id).length).toBeGreaterThan(0);
    expect(estate.asset(added.id)?.lastAvailableCopyTime).toBe(estate.latestCopy(added.id)?.createTime);
  });

  it('addActivity and setActivityState set up activities in any state', () => {
    const { estate, clock } = make(8);
    const asset = estate.assets()[0] as { id: string; name: string };
    const running = estate.addActivity({ category: 'PROTECT', assetId: asset.id, state: 'RUNNING', bytesTransferred: 5000 });
    expect(running).toMatchObject({ state: 'RUNNING', classType: 'JOB', endTime: null, asset: { id: asset.id, name: asset.name }, result: { status: 'UNKNOWN' } });
    clock.advance(90_000);
    const done = estate.setActivityState(running.id, 'COMPLETED', 'FAILED');
    expect(done).toMatchObject({ state: 'COMPLETED', result: { status: 'FAILED', bytesTransferred: 5000, error: expect.any(Object) }, duration: 90_000 });
    expect(done.updateTime).toBe(clock.now().toISOString());
    const queued = estate.addActivity({ state: 'QUEUED' });
    clock.advance(DAY);
    expect(estate.activity(queued.id)?.state).toBe('QUEUED');
    expect(() => estate.addActivity({ createTime: new Date(clock.now().getTime() + 1) })).toThrow(RangeError);
  });

  it('addAuditEntry, alerts and inventory discovery', () => {
    const { estate, clock } = make(8);
    clock.advance(HOUR);
    const entry = estate.addAuditEntry({ auditType: 'SECURITY', changeDescription: 'Login failed: admin' });
    expect(estate.auditEntries({ since: clock.now() })).toContainEqual(entry);
    expect(() => estate.addAuditEntry({ changedTime: new Date(START.getTime() - 1).toISOString() })).toThrow(RangeError);

    const alert = estate.addAlert({ severity: 'CRITICAL', message: 'boom' });
    expect(estate.alerts().at(-1)).toEqual(alert);
    estate.acknowledgeAlert(alert.id);
    expect(estate.alerts().at(-1)?.acknowledgement.acknowledgeState).toBe('ACKNOWLEDGED');
    expect(estate.removeAlert(alert.id)).toBe(true);

    const source = estate.inventorySources()[0] as { id: string; lastDiscovered: string };
    clock.advance(2 * HOUR);
    expect(Date.parse(estate.inventorySources()[0]?.lastDiscovered ?? '')).toBeGreaterThan(Date.parse(source.lastDiscovered));
    estate.setInventorySourceDiscovery(source.id, { status: 'FAILED', summaries: ['down'], at: START });
    expect(estate.inventorySources()[0]).toMatchObject({ lastDiscovered: START.toISOString(), lastDiscoveryResult: { status: 'FAILED', summaries: ['down'] } });
  });
});
