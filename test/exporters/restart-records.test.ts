/**
 * What the serving thread's store shows across a restart of the collection thread, wired as host.ts and worker.ts wire it: the
 * collection thread's store tells a listener, the serving thread's store mirrors it; when the thread dies host.ts calls
 * collectionLost, and a new thread's store registers its collectors afresh, counting from 0.
 */
import { gunzipSync } from 'node:zlib';
import { SnapshotStore } from '../../src/snapshot/store';
import { renderRecordChunks } from '../../src/exporters/renderer';
import { prepareResult } from '../../src/exporters/prepared';

const STALE_AFTER_MS = 15 * 60_000;
const result = prepareResult({
  samples: [{ name: 'dataprotect_assets', labels: { target: 't', asset_type: 'VM', protection_status: 'PROTECTED' }, value: 7 }],
});

/** The serving thread's store and a collection thread feeding it; `restart` ends that thread and starts another. */
function threads() {
  const serving = new SnapshotStore();
  const thread = (): SnapshotStore => new SnapshotStore({ changed: (record) => serving.mirror(record), removed: (t, c) => serving.remove(t, c) });
  let collection = thread();
  return {
    serving,
    collection: () => collection,
    restart(at: number): void {
      serving.collectionLost('the collection thread stopped (out of memory)', at);
      collection = thread();
    },
    render: (now: number): string => gunzipSync(Buffer.concat(renderRecordChunks(serving.all(), { now, staleAfterMs: STALE_AFTER_MS }))).toString('utf8'),
  };
}

function runs(store: SnapshotStore, collector: string, ...reports: Array<{ ok: boolean; at: number }>): void {
  for (const { ok, at } of reports) {
    store.runStarted('t', collector);
    if (ok) store.runFinished('t', collector, { ok, durationSeconds: 1, endedAt: at, result });
    else store.runFinished('t', collector, { ok, durationSeconds: 1, endedAt: at, error: 'ECONNREFUSED', unreachable: true });
  }
}

const now = Date.now();
const minutes = (n: number): number => now - n * 60_000;

it('a target that could not be reached stays down, and a failing collector keeps its last success time and counts', () => {
  const t = threads();
  t.collection().register('t', 'management', 'assets', 120);
  runs(t.collection(), 'assets', { ok: true, at: minutes(180) }, { ok: false, at: minutes(10) }, { ok: false, at: minutes(8) });
  const lastSuccess = `dataprotect_collector_last_success_timestamp_seconds{target="t",collector="assets"} ${minutes(180) / 1000}`;

  t.restart(minutes(5));
  let text = t.render(now);
  expect(text).toContain('dataprotect_up{target="t",kind="management"} 0'); // DataProtectTargetDown's `for` goes on
  expect(text).toContain('dataprotect_collector_success{target="t",collector="assets"} 0');

  t.collection().register('t', 'management', 'assets', 120);
  expect(t.render(now)).toContain(lastSuccess); // before the new thread's first run ends
  runs(t.collection(), 'assets', { ok: false, at: minutes(4) });
  text = t.render(now);
  expect(text).toContain('dataprotect_up{target="t",kind="management"} 0');
  expect(text).toContain(lastSuccess); // DataProtectCollectorDataStale keeps firing
  expect(text).toContain('dataprotect_collector_runs_total{target="t",collector="assets"} 4');
  expect(text).toContain('dataprotect_collector_failures_total{target="t",collector="assets"} 3');

  runs(t.collection(), 'assets', { ok: true, at: minutes(2) });
  text = t.render(now);
  expect(text).toContain('dataprotect_up{target="t",kind="management"} 1');
  expect(text).toContain(`dataprotect_collector_last_success_timestamp_seconds{target="t",collector="assets"} ${minutes(2) / 1000}`);
  expect(text).toContain('dataprotect_collector_runs_total{target="t",collector="assets"} 5');
});

it('an hourly collector that succeeded 20 minutes ago keeps its series when the thread dies, until a run ends', () => {
  const t = threads();
  t.collection().register('t', 'management', 'compliance', 3600);
  runs(t.collection(), 'compliance', { ok: true, at: minutes(20) });
  t.restart(minutes(1));
  // served until its next run was due, an hour after the last, plus staleAfter, as before the thread died
  expect(t.render(now)).toContain('dataprotect_assets{');
  t.collection().register('t', 'management', 'compliance', 3600);
  expect(t.render(now)).toContain('dataprotect_assets{');
  // a run of the new thread that fails takes the interval's grace away, as any failed run does
  runs(t.collection(), 'compliance', { ok: false, at: now });
  expect(t.render(now)).not.toContain('dataprotect_assets{');
});

it('a target down before the thread died stays down after it, whatever its other collectors last did', () => {
  const t = threads();
  t.collection().register('t', 'storage', 'capacity', 300);
  t.collection().register('t', 'storage', 'alerts', 60);
  t.collection().register('t', 'storage', 'replication', 300);
  // capacity reached the source before it went down; alerts could not reach it since; replication's first run still waits on it
  runs(t.collection(), 'capacity', { ok: true, at: minutes(4) });
  runs(t.collection(), 'alerts', { ok: false, at: minutes(3) }, { ok: false, at: minutes(2) });
  t.collection().runStarted('t', 'replication');
  expect(t.render(now)).toContain('dataprotect_up{target="t",kind="storage"} 0');

  t.restart(minutes(1));
  expect(t.render(now)).toContain('dataprotect_up{target="t",kind="storage"} 0'); // no run reached it: DataProtectTargetDown's `for` goes on
  for (const collector of ['capacity', 'alerts', 'replication']) t.collection().register('t', 'storage', collector, collector === 'alerts' ? 60 : 300);
  expect(t.render(now)).toContain('dataprotect_up{target="t",kind="storage"} 0'); // before the new thread's runs end
});

it('a target whose only runs the thread ended has no dataprotect_up: nothing says it was reached', () => {
  const t = threads();
  t.collection().register('t', 'management', 'assets', 120);
  t.collection().runStarted('t', 'assets');
  t.restart(minutes(1));
  expect(t.render(now)).not.toContain('dataprotect_up{');
  expect(t.render(now)).toContain('dataprotect_collector_success{target="t",collector="assets"} 0');
});

it('a run the thread ended counts as a failed run: a collector that never succeeds in a crash loop fires DataProtectCollectorFailing', () => {
  const t = threads();
  t.collection().register('t', 'management', 'assets', 120);
  t.collection().register('t', 'management', 'alerts', 120);
  runs(t.collection(), 'alerts', { ok: true, at: minutes(3) });
  t.collection().runStarted('t', 'assets'); // the run the thread dies in (out of memory on the asset listing)
  t.restart(minutes(2));
  for (const collector of ['assets', 'alerts']) t.collection().register('t', 'management', collector, 120);
  t.collection().runStarted('t', 'assets');
  t.restart(minutes(1));
  const text = t.render(now);
  // no success since the start, two runs failed: the rules' `failures_total >= 2 unless last_success` branch holds
  expect(text).toContain('dataprotect_collector_runs_total{target="t",collector="assets"} 2');
  expect(text).toContain('dataprotect_collector_failures_total{target="t",collector="assets"} 2');
  // a collector that had no run going on when the thread died failed no run
  expect(text).toContain('dataprotect_collector_failures_total{target="t",collector="alerts"} 0');
});
