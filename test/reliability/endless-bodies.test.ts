/**
 * Upstreams whose bodies never end, beside a healthy one, through the whole
 * runtime: the bytes buffered at once stay within collection.maxBufferedResponseBytes
 * (counted, not read from RSS), each hostile run fails with an error naming the
 * endpoint and the limit, and the healthy target is collected as usual.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { PeakBudget, writeEndlessBody } from '../support/endless-body';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';

const BUDGET = 1024 * 1024;
const HOSTILE_TARGETS = 4;

describe('bodies that never end', () => {
  let sim: RunningSimulator;
  let server: Server;
  let hostileUrl: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, size: { assets: 5, replicatedVms: 40, replicationClusters: 2, storageSystems: 1 } });
    server = createServer(writeEndlessBody);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await sim.close();
  });

  it('keep the bytes buffered across targets within the budget while a healthy target is collected', async () => {
    const hostile = Array.from({ length: HOSTILE_TARGETS }, (_, i) => ({
      name: `hostile-${i}`,
      kind: 'replication',
      url: hostileUrl,
      username: 'u',
      password: 'p',
      maxResponseBytes: '768KiB',
    }));
    const config = parseConfig({
      collection: { maxBufferedResponseBytes: BUDGET },
      targets: [...hostile, { name: 'healthy', kind: 'replication', url: sim.urls.replication, username: sim.username, password: sim.password, maxResponseBytes: BUDGET }],
    });
    const budget = new PeakBudget(BUDGET);
    const runtime = new ExporterRuntime(config, { logger: silentLogger, responseBudget: budget });
    try {
      await runtime.runOnce();
      const records = runtime.store.all();
      const healthy = records.filter((record) => record.target === 'healthy');
      expect(healthy.map((record) => [record.collector, record.lastRunSucceeded])).toEqual([
        ['clusters', true],
        ['groups', true],
        ['vms', true],
      ]);
      const failures = records.filter((record) => record.target !== 'healthy');
      expect(failures).toHaveLength(HOSTILE_TARGETS * 3);
      for (const record of failures) {
        expect(record.lastRunSucceeded).toBe(false);
        expect(record.lastError).toMatch(/^\/api\/v1\/[^:]+: response body (larger than 768 KiB \(maxResponseBytes\)|stopped at .* of the bodies filling the 1 MiB buffered across all targets \(maxBufferedResponseBytes\))$/);
      }
      expect(budget.peak).toBeGreaterThan(BUDGET / 2); // the hostile bodies did press on the budget
      expect(budget.peak).toBeLessThanOrEqual(BUDGET);
      expect(budget.usedBytes).toBe(0);
    } finally {
      await runtime.stop();
    }
  });
});
