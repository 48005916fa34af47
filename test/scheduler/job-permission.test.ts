/**
 * A collector refused with 403 through the scheduler's job: the run fails
 * (success 0, the target not counted as unreachable), and the only warning
 * is the collector's own line naming the role, not one per run.
 */
import pino from 'pino';
import { ManagementClient } from '../../src/clients/management/client';
import { cloudDrSessionsCollector } from '../../src/collectors/management/cloud-dr-sessions';
import { CollectorJob } from '../../src/scheduler/job';
import { SnapshotStore } from '../../src/snapshot/store';
import { DEFAULT_USER_ROLE_USERNAME, startSimulator, type RunningSimulator } from '../../simulator';
import { defaultSettings, silentLogger, simulatorTarget } from '../support/collect';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: { assets: 200, replicatedVms: 1, storageSystems: 1 }, startTime: new Date('2026-11-18T10:00:00Z') });
});
afterAll(async () => {
  await sim.close();
});

it('a 403 fails the run with success 0 and one warning naming the role across runs', async () => {
  const target = simulatorTarget(sim, 'management', { username: DEFAULT_USER_ROLE_USERNAME });
  const client = new ManagementClient(target, { logger: silentLogger });
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const store = new SnapshotStore();
  store.register(target.name, 'management', cloudDrSessionsCollector.name, 300);
  const job = new CollectorJob({ config: target, client, shared: new Map() }, cloudDrSessionsCollector, { schedule: '*/5 * * * *', timeoutMs: 10_000 }, {
    store,
    logger,
    settings: () => defaultSettings(),
    now: () => sim.clock.now(),
  });
  try {
    for (let run = 0; run < 3; run++) {
      expect(await job.run()).toBe('failure');
      sim.clock.advance(5 * 60_000);
    }
    const record = store.get(target.name, cloudDrSessionsCollector.name);
    expect(record).toMatchObject({ lastRunSucceeded: false, failures: 3 });
    expect(record?.unreachableSince).toBeUndefined(); // a 403 is the API answering
    expect(record?.lastError).toMatch(/needs the Administrator or Restore Administrator role/);
    const warnings = lines.filter((line) => line.level >= 40);
    expect(warnings.map((line) => line.msg)).toEqual([expect.stringMatching(/cloud-dr-sessions collector needs the Administrator or Restore Administrator role/)]);
    expect(lines.filter((line) => line.msg === 'collection failed')).toHaveLength(3); // at debug
  } finally {
    await client.close();
  }
});
