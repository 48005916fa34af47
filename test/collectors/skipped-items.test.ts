/**
 * One bad item costs that item, not its listing: an asset whose size is the
 * string "NaN" is left out of what the assets collector exports, counted in
 * dataprotect_collector_skipped_items_total at every run and logged once
 * (its id and field, not its content), while the other assets are exported
 * as usual. The same for the replication plugin's unpaged lists and the
 * storage API's pages.
 */
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { renderRecordChunks } from '../../src/exporters/renderer';
import { assetsCollector } from '../../src/collectors/management/assets';
import { clustersCollector } from '../../src/collectors/replication/clusters';
import { alertsCollector as storageAlertsCollector } from '../../src/collectors/storage/alerts';
import type { AnyCollector } from '../../src/collectors/types';
import { createLogger } from '../../src/util/logger';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { FaultRule } from '../../simulator/types';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, size: { assets: 100, copiesPerAsset: 1 } });
});
afterAll(() => sim.close());
beforeEach(() => sim.faults.clear());

interface Outcome {
  results: string[][];
  /** the log lines of every run, parsed */
  logs: Array<Record<string, unknown>>;
  /** the exposition after the last run */
  metrics: string;
}

/** Runs one collector of one target `runs` times with a fault in place. */
async function runWith(kind: 'management' | 'replication' | 'storage', collector: AnyCollector, fault: FaultRule, runs: number): Promise<Outcome> {
  sim.faults.add(fault);
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const url = { management: sim.urls.management, replication: sim.urls.replication, storage: sim.urls.storageCenter }[kind];
  const config = parseConfig({ targets: [{ name: 't', kind, url, username: sim.username, password: sim.password, pageSize: 30 }] });
  const runtime = new ExporterRuntime(config, { logger: createLogger('debug', sink), collectorsFor: () => [collector] });
  const results: string[][] = [];
  try {
    for (let run = 0; run < runs; run++) results.push(await runtime.runOnce());
    // gzip members, one after another: one gzip stream to gunzip
    const metrics = gunzipSync(Buffer.concat(renderRecordChunks(runtime.store.all(), { now: Date.now(), staleAfterMs: 600_000 }))).toString('utf8');
    return { results, logs, metrics };
  } finally {
    await runtime.stop();
  }
}

const skipLines = (outcome: Outcome): Array<Record<string, unknown>> => outcome.logs.filter((line) => line.msg === 'listing item skipped: it fails its checks');

/** The values of a family's series, by their formatted labels. */
function series(metrics: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const match of metrics.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) out.set(match[1] ?? '', Number(match[2]));
  return out;
}

const sum = (values: Map<string, number>): number => [...values.values()].reduce((a, b) => a + b, 0);

it('one asset of 100 with a non-numeric size: 99 exported, the skip counted every run and logged once', async () => {
  const live = sim.estate.management.assets().filter((asset) => !asset.deleted);
  const bad = live[50];
  if (!bad) throw new Error('the estate has fewer assets than the test needs');
  const outcome = await runWith('management', assetsCollector, { api: 'management', path: '/api/v2/assets', fault: { kind: 'item', id: bad.id, field: 'size', value: 'NaN' } }, 2);

  expect(outcome.results).toEqual([['success'], ['success']]);
  expect(sum(series(outcome.metrics, 'dataprotect_assets'))).toBe(live.length - 1);
  expect(outcome.metrics).not.toContain(`asset_id="${bad.id}"`);
  expect(series(outcome.metrics, 'dataprotect_asset_info').size).toBe(live.length - 1);
  expect(series(outcome.metrics, 'dataprotect_collector_skipped_items_total')).toEqual(new Map([['{target="t",collector="assets",reason="wrong_type"}', 2]]));

  const lines = skipLines(outcome);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 'warn', target: 't', collector: 'assets', endpoint: '/api/v2/assets', id: bad.id, reason: 'wrong_type' });
  expect(lines[0]?.problem).toMatch(/^content\[\d+\]\.size: expected number, got string$/);
  expect(JSON.stringify(lines[0])).not.toContain(bad.name);
});

it('a replication cluster with a wrong field is skipped, the others exported', async () => {
  const clusters = sim.estate.replication.clusters;
  if (clusters.length < 2) throw new Error('the estate has fewer clusters than the test needs');
  // The collector asks for the fields it reads (no id): the first of the list is the bad one.
  const outcome = await runWith('replication', clustersCollector, { api: 'replication', path: '/rep-clusters', fault: { kind: 'item', index: 0, field: 'name', value: 42 } }, 1);

  expect(outcome.results).toEqual([['success']]);
  expect(series(outcome.metrics, 'dataprotect_replication_cluster_connected').size).toBe(new Set(clusters.map((cluster) => cluster.name)).size - 1);
  expect(series(outcome.metrics, 'dataprotect_collector_skipped_items_total')).toEqual(new Map([['{target="t",collector="clusters",reason="wrong_type"}', 1]]));
  expect(skipLines(outcome)).toEqual([expect.objectContaining({ problem: '[0].name: expected string, got number' })]);
});

it('a storage alert whose status is not a string is skipped, the page read on', async () => {
  const storage = sim.estate.storage;
  const bad = storage.systems.flatMap((system) => storage.alerts(system.id)).find((alert) => alert.status === 'active');
  if (!bad) throw new Error('the estate has no active storage alert');
  const outcome = await runWith('storage', storageAlertsCollector, { api: 'storage', path: '/alerts', fault: { kind: 'item', id: bad.id, field: 'status', value: 7 } }, 1);

  expect(outcome.results).toEqual([['success']]);
  expect(series(outcome.metrics, 'dataprotect_collector_skipped_items_total')).toEqual(new Map([['{target="t",collector="alerts",reason="wrong_type"}', 1]]));
  expect(skipLines(outcome)).toEqual([expect.objectContaining({ id: bad.id, problem: expect.stringMatching(/^alert_list\[\d+\]\.status: expected string, got number/) })]);
});
