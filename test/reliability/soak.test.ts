/**
 * Soak, at CI scale: hundreds of rounds of every collector of the three kinds
 * under random faults with the simulated clock moving, and a restart in the
 * middle. `npm run bench -- ...` has the longer version: `npx tsx bench/soak.ts`.
 */
import { runSoak, type CounterCheck } from './soak-driver';

const ROUNDS = 200;

const note = (line: string) => console.log(line);

function expectEqualToTruth(checks: CounterCheck[]): void {
  for (const check of checks) {
    expect({ metric: check.metric, values: check.actual }).toEqual({ metric: check.metric, values: check.expected });
  }
}

describe('soak: random faults, a moving clock and a restart', () => {
  it(
    'ends with every counter equal to the simulator truth, windows rebuilt after the restart, no unhandled rejection, no heap growth',
    async () => {
      const report = await runSoak({
        rounds: ROUNDS,
        seed: 11,
        size: { assets: 40, copiesPerAsset: 3, activitiesPerDay: 3_000, auditEntries: 300, auditEntriesPerDay: 2_000, replicatedVms: 15, storageSystems: 2 },
        advanceMs: 3 * 60_000,
        faultyRoundShare: 0.3,
        restartBeforeRound: ROUNDS / 2,
        memorySampleEvery: 20,
      });

      // The soak did what it says: faults were injected and made collector runs fail.
      expect(report.rounds).toBe(ROUNDS);
      expect(report.faultsInjected).toBeGreaterThan(ROUNDS / 5);
      expect(report.failedRuns).toBeGreaterThan(10);
      expect(report.unhandled).toEqual([]);
      note(`soak: ${report.cleanRoundRepeats} fault-free round(s) repeated after a failed run`);

      // Something was counted (else equality with the truth proves little).
      const finalActivities = report.final.counters[0] as CounterCheck;
      expect(Object.values(finalActivities.expected).reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
      expectEqualToTruth(report.final.counters);
      expectEqualToTruth(report.final.windows);

      // Restart: the old exporter was exact up to then; the new one replays no history and rebuilds the windows.
      expectEqualToTruth(report.beforeRestart?.counters ?? [{ metric: 'missing', expected: { x: 1 }, actual: {} }]);
      for (const check of report.afterRestart?.counters ?? []) expect(check.actual).toEqual({});
      expect(report.afterRestart?.counters).toHaveLength(2);
      expectEqualToTruth(report.afterRestart?.windows ?? []);
      expect(Object.keys(report.afterRestart?.windows[0]?.expected ?? {}).length).toBeGreaterThan(0);

      // Memory: heapUsed after a full GC does not grow across rounds (needs --expose-gc; bench/soak.ts runs so).
      if (report.heapSamples.length >= 4) {
        const quarter = Math.floor(report.heapSamples.length / 4);
        const early = Math.max(...report.heapSamples.slice(1, 1 + quarter));
        const late = Math.max(...report.heapSamples.slice(-quarter));
        expect(late).toBeLessThan(early * 1.25 + 4 * 1024 * 1024);
      } else {
        note('soak: global.gc is not exposed in this jest run; the heap check runs in bench/soak.ts (node --expose-gc)');
      }
    },
    120_000,
  );
});
