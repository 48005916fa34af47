/**
 * The collection thread dies, scrapes go on: killed in the middle of a
 * round, or out of memory under a small heap ceiling (collection.heapLimit)
 * on a body larger than that heap. Meanwhile every scrape is answered with
 * the last results, the collectors of that thread report failure, the
 * restart is counted, and collection resumes in a new thread. The order is
 * what is checked, not the clock: the hung listings outlast the test, so a
 * collector can succeed only in the thread started after the faults are gone.
 */
import { Agent, request } from 'undici';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import type { CollectionHost } from '../../src/collection/host';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { COLLECTORS } from '../../src/collectors/registry';
import { silentLogger } from '../support/collect';
import { truthBetween, valuesOf } from './soak-driver';

const SIZE = { assets: 40, copiesPerAsset: 2, activitiesPerDay: 500, auditEntries: 100, replicatedVms: 0, storageSystems: 1 };
const ASSET_LISTING = /^\/api\/v2\/assets$/;

function configFor(sim: RunningSimulator, settings: { heapLimit?: string } = {}): ExporterConfig {
  return parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    collection: { ...settings },
    targets: [{ name: 'mgmt', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password, requestTimeout: '10m', maxAttempts: 1 }],
  });
}

const exporterFor = (sim: RunningSimulator, settings: { heapLimit?: string } = {}): Exporter =>
  new Exporter(configFor(sim, settings), silentLogger, { processMetrics: false });

async function get(agent: Agent, url: string): Promise<{ status: number; text: string }> {
  const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(15_000) });
  return { status: response.statusCode, text: await response.body.text() };
}

/** Resolves once `condition` holds, however long the machine takes (the test's time limit bounds it). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

const restarts = (text: string, reason: string): number => Number(new RegExp(`dataprotect_exporter_collection_restarts_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? 'NaN');
const ASSETS_SUCCESS = 'dataprotect_collector_success{target="mgmt",collector="assets"}';

describe('the collection thread dies, scrapes go on', () => {
  let sim: RunningSimulator;
  let exporter: Exporter | undefined;
  let agent: Agent;

  beforeEach(async () => {
    sim = await startSimulator({ seed: 11, size: SIZE });
    agent = new Agent({ connections: 8 });
  });

  afterEach(async () => {
    await exporter?.stop();
    exporter = undefined;
    await agent.close();
    await sim.close();
  });

  it('killed mid-round: scrapes keep the last results, the restart is counted, collection resumes', async () => {
    exporter = exporterFor(sim);
    await exporter.start();
    const metrics = `${exporter.address()}/metrics`;
    const host = exporter.runtime as CollectionHost;
    await until(() => host.firstRoundComplete());
    const before = await get(agent, metrics);
    expect(before.text).toContain(`${ASSETS_SUCCESS} 1`);
    expect(restarts(before.text, 'exit')).toBe(0);

    // A round whose asset listing hangs; the thread is ended while it waits.
    sim.faults.add({ api: 'management', path: ASSET_LISTING, fault: { kind: 'hang' } });
    const listed = sim.stats.count('management', ASSET_LISTING);
    const round = exporter.runtime.runOnce();
    await until(() => sim.stats.count('management', ASSET_LISTING) > listed);
    await host.interrupt();
    await expect(round).rejects.toThrow(/collection thread stopped/);

    // The listing keeps hanging in the restarted thread too: its assets collector cannot end a run.
    await until(async () => restarts((await get(agent, metrics)).text, 'exit') === 1);
    const during = await Promise.all(Array.from({ length: 30 }, () => get(agent, metrics)));
    for (const answer of during) {
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(`${ASSETS_SUCCESS} 0`);
      expect(answer.text).toContain('dataprotect_asset_info{'); // the last good series, inside staleAfter
    }
    expect((await get(agent, `${exporter.address()}/healthz`)).status).toBe(200);

    // Without the fault, a thread started afresh collects again.
    await until(() => sim.stats.count('management', ASSET_LISTING) > listed + 1);
    sim.faults.clear();
    await host.interrupt();
    await until(async () => (await get(agent, metrics)).text.includes(`${ASSETS_SUCCESS} 1`));
    const after = await get(agent, metrics);
    expect(restarts(after.text, 'exit')).toBe(2);
    expect(after.text).toContain('dataprotect_asset_info{');
    expect(after.text).toContain('dataprotect_exporter_first_round_complete 1');
  });

  it('the counters go on across a restart: each activity and audit entry that appears while the thread is down counted once', async () => {
    await sim.close();
    sim = await startSimulator({ seed: 24, size: { ...SIZE, activitiesPerDay: 4_000, auditEntriesPerDay: 4_000 }, startTime: new Date() });
    const counting = new Set(['activities', 'audit-logs']);
    const others = COLLECTORS.management.filter((definition) => !counting.has(definition.name));
    const config = configFor(sim);
    const target = config.targets[0] as ExporterConfig['targets'][number];
    target.collectors = Object.fromEntries(others.map((definition) => [definition.name, { enabled: false }]));
    exporter = new Exporter(config, silentLogger, { processMetrics: false });
    await exporter.start();
    const host = exporter.runtime as CollectionHost;
    await until(() => host.firstRoundComplete());
    const counted = async (): Promise<number> => {
      const text = (await get(agent, `${exporter?.address()}/metrics`)).text;
      const values = [...valuesOf(text, 'dataprotect_activities_completed_total', ['class_type', 'category', 'result']).values()];
      const audit = [...valuesOf(text, 'dataprotect_audit_events_total', ['audit_type']).values()];
      return [...values, ...audit].reduce((a, b) => a + b, 0);
    };
    /** moves both clocks; then rounds until both counting collectors have succeeded on it */
    const later = async (): Promise<void> => {
      sim.clock.advance(8 * 60_000);
      host.advanceClock(8 * 60_000);
      for (;;) {
        const results = await host.runOnce().catch(() => []);
        if (results.length === 2 && results.every((result) => result === 'success')) return;
      }
    };
    await later();
    const before = await counted();
    expect(before).toBeGreaterThan(5);

    await host.interrupt();
    const from = sim.clock.now().getTime();
    // Activities complete while no thread collects; the restarted thread keeps the moved clock.
    sim.clock.advance(8 * 60_000);
    host.advanceClock(8 * 60_000);
    await until(async () => restarts((await get(agent, `${exporter?.address()}/metrics`)).text, 'exit') === 1);
    await until(() => host.firstRoundComplete());
    await later();
    const truth = truthBetween(sim, from, sim.clock.now().getTime());
    const appeared = [...Object.values(truth.completed), ...Object.values(truth.audit)].reduce((a, b) => a + b, 0);
    expect(appeared).toBeGreaterThan(5);
    const after = await counted();
    expect(after).toBe(before + appeared);
  });

  it('out of memory: only the collection thread ends, it is restarted, and a larger ceiling lets it collect', async () => {
    await sim.close();
    // Ten thousand assets (their copies, activities and audit entries) do not fit a 24 MiB heap.
    sim = await startSimulator({ seed: 11, size: { ...SIZE, assets: 10_000, copiesPerAsset: 20 } });
    exporter = exporterFor(sim, { heapLimit: '24MiB' });
    await exporter.start();
    const metrics = `${exporter.address()}/metrics`;
    await until(async () => restarts((await get(agent, metrics)).text, 'out_of_memory') >= 1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(agent, metrics)));
    for (const answer of answers) expect(answer.status).toBe(200);
    // The next thread starts with the ceiling a reload gives.
    await exporter.applyConfig(configFor(sim, { heapLimit: '512MiB' }));
    await until(async () => (await get(agent, metrics)).text.includes(`${ASSETS_SUCCESS} 1`));
  });
});
