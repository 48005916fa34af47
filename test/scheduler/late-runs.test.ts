/**
 * A scheduled time the collection thread was busy past (a large result's preparation holds it about a second at 50,000 assets):
 * the run still starts, late, unless its next time has come too; a time passed that way is counted as a skipped run. node-cron
 * alone drops a run more than 1 s late without a count, and prints a line of plain text amid the JSON logs.
 * The clock and node-cron's timers are faked: "busy" is the clock moving while no timer fires.
 */
import { Scheduler } from '../../src/scheduler/scheduler';
import type { CollectorJob } from '../../src/scheduler/job';
import { silentLogger } from '../support/collect';

/** 2 March 2026, 00:00:00.500 */
const START = new Date(2026, 2, 2, 0, 0, 0, 500);

function fakeJob(schedule: string): { job: CollectorJob; runs: number; missed: number } {
  const counts = { runs: 0, missed: 0 };
  const job = {
    name: 'assets',
    settings: { schedule },
    runtime: { config: { name: 't' } },
    isRunning: false,
    run: async () => {
      counts.runs += 1;
      return 'success';
    },
    missed: () => (counts.missed += 1),
    stop: async () => undefined,
  };
  return Object.assign(counts, { job: job as unknown as CollectorJob });
}

let scheduler: Scheduler;
beforeEach(() => {
  jest.useFakeTimers({ now: START });
  scheduler = new Scheduler(silentLogger);
});
afterEach(async () => {
  await scheduler.stop();
  jest.useRealTimers();
});

it('starts a run the thread was busy at the time of, late', async () => {
  const fake = fakeJob('*/10 * * * * *');
  scheduler.add(fake.job);
  jest.setSystemTime(START.getTime() + 3_000); // busy for 3 s: the 00:00:10 run's timer fires at 00:00:12.5
  await jest.advanceTimersByTimeAsync(9_500);
  expect(fake).toMatchObject({ runs: 1, missed: 0 });
});

it('counts a time its next time overtook as missed, and runs the next', async () => {
  const fake = fakeJob('*/10 * * * * *');
  scheduler.add(fake.job);
  jest.setSystemTime(START.getTime() + 12_000); // busy for 12 s: at 00:00:22 the 00:00:10 run is past its next time
  await jest.advanceTimersByTimeAsync(9_500);
  expect(fake).toMatchObject({ runs: 1, missed: 1 });
});
