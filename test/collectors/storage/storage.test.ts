import { startSimulator, type RunningSimulator } from '../../../simulator';
import type { StorageClient } from '../../../src/clients/storage/client';
import { ApiError } from '../../../src/clients/errors';
import { countingRequests, type RunCount } from '../../../src/clients/run-requests';
import type { TargetConfig } from '../../../src/config/load';
import { COLLECTORS } from '../../../src/collectors/registry';
import { alertsCollector } from '../../../src/collectors/storage/alerts';
import { capacityCollector } from '../../../src/collectors/storage/capacity';
import type { PerSystemState } from '../../../src/collectors/storage/per-system';
import { replicationContextsCollector } from '../../../src/collectors/storage/replication';
import { systemCollector } from '../../../src/collectors/storage/system';
import type { CollectorDefinition, CollectResult } from '../../../src/collectors/types';
import { metricFamily } from '../../../src/metrics/catalog';
import { clientFor, expectWellFormed, runCollector, samplesNamed, simulatorTarget, valueOf } from '../../support/collect';

const SIZE = { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5, replicatedVms: 5, replicationClusters: 1, storageSystems: 3 };
const TOKEN_TTL_SECONDS = 900;
const CAPACITY_METRICS = {
  dataprotect_storage_physical_capacity_bytes: (s: Sample) => s.physical_capacity.total,
  dataprotect_storage_physical_used_bytes: (s: Sample) => s.physical_capacity.used,
  dataprotect_storage_physical_available_bytes: (s: Sample) => s.physical_capacity.available,
  dataprotect_storage_logical_used_bytes: (s: Sample) => s.logical_capacity.used,
  dataprotect_storage_compression_factor: (s: Sample) => s.compression_factor,
} as const;
type Sample = ReturnType<RunningSimulator['estate']['storage']['newestCapacity']>;

describe.each(['seed', 'product'] as const)('storage collectors against the simulated management center and appliance, %s spelling', (spelling) => {
  const otherSpelling = spelling === 'seed' ? /\/dd-systems/ : /\/store-systems/;
  let sim: RunningSimulator;
  let clients: StorageClient[];
  let center: { target: TargetConfig; client: StorageClient };
  let appliance: { target: TargetConfig; client: StorageClient };

  const connect = (overrides: Record<string, unknown> = {}) => {
    const target = simulatorTarget(sim, 'storage', { maxAttempts: 1, ...overrides });
    const client = clientFor(target as TargetConfig & { kind: 'storage' });
    clients.push(client);
    return { target, client };
  };
  const run = <S>(definition: CollectorDefinition<'storage', S>, on = center, extra: { state?: S; now?: () => Date } = {}) =>
    runCollector(definition, { ...on, now: () => sim.clock.now(), ...extra });
  const systems = () => sim.estate.storage.systems;


  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: SIZE, startTime: new Date('2026-06-15T09:40:00Z'), tokenTtlSeconds: TOKEN_TTL_SECONDS, apiSpelling: spelling });
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    clients = [];
    sim.faults.clear();
    center = connect();
    appliance = connect({ url: sim.urls.storageAppliance });
    sim.stats.reset();
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  it('lists the four collectors with the metrics they emit', () => {
    expect(COLLECTORS.storage.map((c) => c.name)).toEqual(['system', 'capacity', 'alerts', 'replication']);
    for (const collector of COLLECTORS.storage) for (const name of collector.metrics) expect(metricFamily(name).name).toBe(name);
  });

  describe('system', () => {
    it('reports every managed system of a management center', async () => {
      const result = await run(systemCollector);
      await expectWellFormed(result, center.target.name);
      expect(samplesNamed(result, 'dataprotect_storage_system_info').map((s) => s.labels)).toEqual(
        systems().map((s) => ({ target: center.target.name, system_id: s.id, system_name: s.name, model: s.model, version: s.version })),
      );
    });

    it('reports a stand-alone appliance under its uuid', async () => {
      const result = await run(systemCollector, appliance);
      const self = systems()[0]!;
      expect(samplesNamed(result, 'dataprotect_storage_system_info').map((s) => s.labels)).toEqual([
        { target: appliance.target.name, system_id: self.uuid, system_name: self.name, model: self.model, version: self.version },
      ]);
    });
  });

  describe('capacity', () => {
    const expectCapacityOf = (result: CollectResult<unknown>, systemId: string) => {
      for (const tier of ['active', 'cloud'] as const) {
        const truth = sim.estate.storage.newestCapacity(systemId, tier);
        for (const [name, value] of Object.entries(CAPACITY_METRICS)) {
          const expected = truth.physical_capacity.total > 0 ? value(truth) : undefined;
          expect([name, tier, valueOf(result, name, { system_id: systemId, tier })]).toEqual([name, tier, expected]);
        }
      }
    };

    it('reports the newest sample of each tier of each system; a system without cloud has no cloud series', async () => {
      const result = await run(capacityCollector);
      await expectWellFormed(result, center.target.name);
      for (const system of systems()) expectCapacityOf(result, system.id);
      expect(sim.estate.storage.newestCapacity(systems()[1]!.id, 'cloud').physical_capacity.total).toBe(0);
      expect(result.samples.some((s) => s.labels.tier === 'total')).toBe(false);
    });

    it('follows the newest sample as time passes, on the appliance too (SYSTEM-ID 0)', async () => {
      const before = await run(capacityCollector, appliance);
      sim.clock.advance(5 * 3_600_000);
      const after = await run(capacityCollector, appliance);
      const id = systems()[0]!.id;
      expectCapacityOf(after, id);
      const used = (r: CollectResult<unknown>) => valueOf(r, 'dataprotect_storage_physical_used_bytes', { system_id: id, tier: 'active' });
      expect(used(after)).not.toBe(used(before));
    });
  });

  describe('alerts', () => {
    const expectAlertCounts = (result: CollectResult<unknown>) => {
      for (const system of systems()) {
        const truth = new Map<string, number>();
        for (const alert of sim.estate.storage.activeAlerts(system.id)) {
          // an alert without a severity (optional in the model) counts under "unknown"
          const key = `${alert.severity ?? 'unknown'}/${alert.class}`;
          truth.set(key, (truth.get(key) ?? 0) + 1);
        }
        const reported = new Map(
          samplesNamed(result, 'dataprotect_storage_alerts')
            .filter((s) => s.labels.system_id === system.id)
            .map((s) => [`${s.labels.severity}/${s.labels.class}`, s.value]),
        );
        expect(reported).toEqual(truth);
        if (system === systems()[0]) expect([...reported.keys()].some((key) => key.startsWith('unknown/'))).toBe(true);
      }
    };

    it('counts active alerts by severity and class per system, cleared ones excluded', async () => {
      const result = await run(alertsCollector);
      await expectWellFormed(result, center.target.name);
      expectAlertCounts(result);
    });

    it('follows alerts raised and cleared, across pages', async () => {
      const system = systems()[2]!;
      const raised = sim.estate.storage.addAlert(system.id, { severity: 'CRITICAL', class: 'Brand-New-Class' });
      const paged = connect({ pageSize: 2 });
      const result = await run(alertsCollector, paged);
      expectAlertCounts(result);
      expect(valueOf(result, 'dataprotect_storage_alerts', { system_id: system.id, severity: 'CRITICAL', class: 'Brand-New-Class' })).toBe(1);
      sim.estate.storage.clearAlert(system.id, raised.id);
      const cleared = await run(alertsCollector, paged);
      expect(valueOf(cleared, 'dataprotect_storage_alerts', { system_id: system.id, severity: 'CRITICAL', class: 'Brand-New-Class' })).toBeUndefined();
    });
  });

  describe('replication contexts', () => {
    it('reports lag as now minus syncEpoch and the state set of every context', async () => {
      const result = await run(replicationContextsCollector);
      await expectWellFormed(result, center.target.name);
      const nowSec = sim.clock.now().getTime() / 1000;
      let lagging = 0;
      for (const system of systems()) {
        for (const context of sim.estate.storage.contexts(system.id)) {
          const labels = { system_id: system.id, context: String(context.id) };
          const lag = valueOf(result, 'dataprotect_storage_replication_lag_seconds', labels);
          expect(lag).toBe(nowSec - context.syncEpoch);
          if ((lag ?? 0) > 3 * 3600) lagging += 1;
          const states = samplesNamed(result, 'dataprotect_storage_replication_state').filter(
            (s) => s.labels.system_id === system.id && s.labels.context === String(context.id),
          );
          expect(states).toHaveLength(6);
          expect(states.filter((s) => s.value === 1).map((s) => s.labels.state)).toEqual([context.state]);
        }
      }
      expect(lagging).toBeGreaterThan(0);
    });

    it('lets a frozen context lag grow with the clock, and shows an unknown state as its own series', async () => {
      const system = systems()[0]!;
      const syncEpoch = sim.clock.now().getTime() / 1000 - 120;
      sim.estate.storage.setContextSyncEpoch(system.id, 1, syncEpoch);
      sim.estate.storage.setContextState(system.id, 1, 'QUIESCED');
      try {
        sim.clock.advance(3_600_000);
        const result = await run(replicationContextsCollector);
        expect(valueOf(result, 'dataprotect_storage_replication_lag_seconds', { system_id: system.id, context: '1' })).toBe(3720);
        const states = samplesNamed(result, 'dataprotect_storage_replication_state').filter((s) => s.labels.system_id === system.id && s.labels.context === '1');
        expect(states).toHaveLength(7);
        expect(states.filter((s) => s.value === 1).map((s) => s.labels.state)).toEqual(['QUIESCED']);
      } finally {
        sim.estate.storage.setContextSyncEpoch(system.id, 1, undefined);
        sim.estate.storage.setContextState(system.id, 1, 'NORMAL');
      }
    });

    it('gives no lag of 0 for a syncEpoch that has not happened (milliseconds, not seconds): the context is skipped and counted', async () => {
      const system = systems()[0]!;
      const fourHoursAgoMs = sim.clock.now().getTime() - 4 * 3_600_000;
      sim.estate.storage.setContextSyncEpoch(system.id, 1, fourHoursAgoMs);
      try {
        const count: RunCount = { requests: 0, answers: 0, skipped: [] };
        const result = await countingRequests(count, () => run(replicationContextsCollector));
        const labels = { system_id: system.id, context: '1' };
        // 0 would read "in sync" for a context four hours behind: the lag alert could never fire
        expect(valueOf(result, 'dataprotect_storage_replication_lag_seconds', labels)).toBeUndefined();
        expect(count.skipped).toEqual([
          expect.objectContaining({ endpoint: expect.stringMatching(/\/mtree-replications$/), id: '1', reason: 'invalid_value', problem: expect.stringContaining('syncEpoch') }),
        ]);
        // the system's other contexts are read as ever
        const other = sim.estate.storage.contexts(system.id).find((context) => context.id !== 1)!;
        expect(valueOf(result, 'dataprotect_storage_replication_lag_seconds', { system_id: system.id, context: String(other.id) })).toBe(
          sim.clock.now().getTime() / 1000 - other.syncEpoch,
        );
      } finally {
        sim.estate.storage.setContextSyncEpoch(system.id, 1, undefined);
      }
    });
  });

  describe('spelling', () => {
    const runAll = async (on: { target: TargetConfig; client: StorageClient }) => {
      for (const collector of COLLECTORS.storage) await run(collector, on);
    };

    it('finds the spelling at first contact and remembers it: one probe of the other spelling per target', async () => {
      for (const on of [center, appliance]) {
        expect(on.client.spelling.known).toBeUndefined();
        await runAll(on);
        expect(on.client.spelling.known).toBe(spelling);
        await runAll(on);
      }
      // The seed spelling is tried first, so only a product server sees a probe: the system list's, once per target.
      expect(sim.stats.count('storage', otherSpelling)).toBe(spelling === 'product' ? 2 : 0);
    });

    it('asks only the configured spelling, and fails with the 404 when it is the wrong one', async () => {
      const right = connect({ apiSpelling: spelling });
      await runAll(right);
      expect(sim.stats.count('storage', otherSpelling)).toBe(0);
      const wrong = connect({ url: sim.urls.storageAppliance, storageMode: 'appliance', apiSpelling: spelling === 'seed' ? 'product' : 'seed' });
      await expect(run(alertsCollector, wrong)).rejects.toMatchObject({ kind: 'status', status: 404 });
      expect(wrong.client.spelling.known).not.toBe(spelling);
    });

    it('reads lists longer than a page in pages of at most 200 (the product answers 400 past that)', async () => {
      const system = systems()[1]!;
      const raised = Array.from({ length: 450 }, () => sim.estate.storage.addAlert(system.id, { severity: 'WARNING', class: 'Flood' }));
      try {
        const result = await run(alertsCollector);
        expect(valueOf(result, 'dataprotect_storage_alerts', { system_id: system.id, severity: 'WARNING', class: 'Flood' })).toBe(450);
        expect(center.target.pageSize).toBe(1000);
        expect(sim.stats.count('storage', `/${spelling === 'seed' ? 'store' : 'dd'}-systems/${encodeURIComponent(system.id)}/alerts`)).toBeGreaterThanOrEqual(3);
      } finally {
        for (const alert of raised) sim.estate.storage.clearAlert(system.id, alert.id);
      }
    });
  });

  describe('faults', () => {
    it('keeps collecting after the token expired', async () => {
      await run(alertsCollector);
      const logins = sim.stats.count('storage', '/rest/v1.0/auth', 'POST');
      sim.clock.advance((TOKEN_TTL_SECONDS + 1) * 1000);
      const result = await run(alertsCollector);
      expect(samplesNamed(result, 'dataprotect_storage_alerts').length).toBeGreaterThan(0);
      expect(sim.stats.count('storage', '/rest/v1.0/auth', 'POST')).toBe(logins + 1);
    });

    it('collects the other systems when one managed system is unreachable, and bridges it up to staleAfter', async () => {
      const [first, down, third] = systems();
      const good = await run(capacityCollector);
      sim.estate.storage.setSystemReachable(down!.id, false);
      try {
        // no earlier state: the unreachable system has no series, the others are fresh
        const fresh = await run(capacityCollector);
        const data = (r: CollectResult<PerSystemState>) => r.samples.filter((s) => s.name !== 'dataprotect_storage_system_collector_success');
        expect(new Set(data(fresh).map((s) => s.labels.system_id))).toEqual(new Set([first!.id, third!.id]));
        const success = (r: CollectResult<PerSystemState>, id: string) =>
          valueOf(r, 'dataprotect_storage_system_collector_success', { system_id: id, collector: 'capacity' });
        expect([success(fresh, first!.id), success(fresh, down!.id), success(fresh, third!.id)]).toEqual([1, 0, 1]);
        expect(Object.keys(fresh.state?.systems ?? {}).sort()).toEqual([first!.id, third!.id].sort());

        // with the last good state: its series are carried while they are younger than staleAfter
        const carried = await run(capacityCollector, center, { state: good.state });
        const downSeries = (r: CollectResult<PerSystemState>) => data(r).filter((s) => s.labels.system_id === down!.id);
        expect(success(carried, down!.id)).toBe(0);
        expect(downSeries(carried)).toEqual(downSeries(good));
        expect(carried.state?.systems[down!.id]).toEqual(good.state?.systems[down!.id]);

        // and dropped once older than staleAfter (15 min by default)
        sim.clock.advance(16 * 60_000);
        const expired = await run(capacityCollector, center, { state: carried.state });
        expect(downSeries(expired)).toEqual([]);
        expect(expired.samples.filter((s) => s.labels.system_id === first!.id).length).toBeGreaterThan(0);

        // the system list still shows it
        const info = await run(systemCollector);
        expect(valueOf(info, 'dataprotect_storage_system_info', { system_id: down!.id })).toBe(1);
      } finally {
        sim.estate.storage.setSystemReachable(down!.id, true);
      }
    });

    it('fails the run when every system fails, keeping the error kind (target down)', async () => {
      for (const system of systems()) sim.estate.storage.setSystemReachable(system.id, false);
      try {
        const error = await run(alertsCollector).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        expect(error).toMatchObject({ kind: 'status', status: 503 });
        expect((error as ApiError).unreachable).toBe(true);
        expect((error as ApiError).message).toContain('all 3 storage systems failed');
        // the stand-alone appliance answers 503 to everything, its login included
        await expect(run(alertsCollector, appliance)).rejects.toMatchObject({ kind: 'status', status: 503, endpoint: '/rest/v1.0/auth' });
      } finally {
        for (const system of systems()) sim.estate.storage.setSystemReachable(system.id, true);
      }
    });

    it('fails the run on a malformed answer from the appliance', async () => {
      sim.faults.add({ api: 'storage', path: '/mtree-replications', times: 1, fault: { kind: 'malformed' } });
      await expect(run(replicationContextsCollector, appliance)).rejects.toMatchObject({ kind: 'parse' });
    });
  });
});
