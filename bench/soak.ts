/**
 * The soak of test/reliability/soak.test.ts, longer and with memory figures:
 *
 *   npx tsx bench/soak.ts [--rounds 1000] [--seed 11] [--assets 200]
 *
 * It re-runs itself under `node --expose-gc`, holding only the exporter (the
 * simulator runs in a child process of its own), so that heapUsed, read after a full GC
 * every 25 rounds; it prints the figures and fails (exit 1) when a counter
 * differs from the simulator's truth, an unhandled rejection happened, or the
 * heap after GC grew by more than 25% (plus 4 MB) from the first quarter of
 * the run to the last.
 */
import { spawnSync } from 'node:child_process';
import { runSoak, type CounterCheck, type SimControl, type Truth } from '../test/reliability/soak-driver';
import type { EstateSize } from '../simulator/types';
import { startChild } from './support/ipc';
import type { SimHello } from './support/sim-child';

/** The simulator in a child process: this process then holds only the exporter, so its heap figures are the exporter's. */
async function childSimulator(seed: number, size: Partial<EstateSize>): Promise<SimControl> {
  const child = await startChild<SimHello>('bench/support/sim-child.ts', { seed, size });
  const { hello } = child;
  return {
    urls: hello.urls,
    username: hello.username,
    password: hello.password,
    startTimeMs: hello.startTimeMs,
    now: () => child.call<number>('nowMs'),
    advance: async (ms) => {
      await child.call('advance', ms);
    },
    addFault: (rule) => child.call('addFault', rule),
    tokenExpiresAfterRequests: (count) => child.call('knobs', { tokenExpiresAfterRequests: count }),
    clearFaults: () => child.call('clearFaults'),
    truth: (sinceMs, untilMs) => child.call<Truth>('truth', { sinceMs, untilMs }),
    close: async () => {
      await child.call('close').catch(() => undefined);
      await child.stop();
    },
  };
}

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

function differences(checks: CounterCheck[]): string[] {
  return checks
    .filter((check) => JSON.stringify(sorted(check.actual)) !== JSON.stringify(sorted(check.expected)))
    .map((check) => `${check.metric}: expected ${JSON.stringify(check.expected)}, got ${JSON.stringify(check.actual)}`);
}

function sorted(values: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const rounds = option('rounds', 1000);
  const assets = option('assets', 200);
  const report = await runSoak({
    rounds,
    seed: option('seed', 11),
    size: { assets, copiesPerAsset: 5, activitiesPerDay: 5_000, auditEntries: 1_000, auditEntriesPerDay: 3_000, replicatedVms: 50, storageSystems: 3 },
    advanceMs: 3 * 60_000,
    faultyRoundShare: 0.3,
    restartBeforeRound: Math.floor(rounds / 2),
    memorySampleEvery: 25,
    simulator: childSimulator,
    log: (line) => console.log(line),
  });
  const problems = [
    ...differences(report.final.counters),
    ...differences(report.final.windows),
    ...differences(report.beforeRestart?.counters ?? []),
    ...differences(report.afterRestart?.windows ?? []),
    ...(report.afterRestart?.counters ?? []).filter((check) => Object.keys(check.actual).length > 0).map((check) => `${check.metric} replayed history after the restart: ${JSON.stringify(check.actual)}`),
    ...report.unhandled.map((reason) => `unhandled rejection: ${reason}`),
  ];
  const samples = report.heapSamples;
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const early = Math.max(...samples.slice(1, 1 + quarter));
  const late = Math.max(...samples.slice(-quarter));
  if (late > early * 1.25 + 4 * 1024 * 1024) problems.push(`heap after GC grew from ${mb(early)} to ${mb(late)}`);

  console.log(`\nsoak: ${report.rounds} rounds in ${report.seconds.toFixed(0)} s, ${report.simulatedHours.toFixed(1)} simulated hours`);
  console.log(`faults injected ${report.faultsInjected}, failed collector runs ${report.failedRuns}, fault-free rounds repeated ${report.repeatedRounds}, restart before round ${Math.floor(rounds / 2)}`);
  const total = (check: CounterCheck | undefined) => Object.values(check?.expected ?? {}).reduce((a, b) => a + b, 0);
  console.log(`counted since the restart: ${total(report.final.counters[0])} activities, ${total(report.final.counters[1])} audit entries (simulator truth, compared per label set)`);
  console.log(`heapUsed after GC every 25 rounds: ${samples.map(mb).join(', ')}`);
  console.log(`heap after GC, first quarter max ${mb(early)}, last quarter max ${mb(late)}; RSS now ${mb(process.memoryUsage().rss)}`);
  console.log(problems.length === 0 ? 'PASS: counters equal the truth, no replay after the restart, windows rebuilt, no unhandled rejection, no heap growth' : `FAIL:\n  ${problems.join('\n  ')}`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}

if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  // Re-run under --expose-gc: the heap is only comparable after full collections.
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(2);
  });
}
