/**
 * A run its own time limit ends: a source that hangs is down (dataprotect_up 0), one that answered and was slow is not. The run's
 * limit is below the request time limit here, as a 1-minute collector's 48 s is below two 30 s attempts by default.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { silentLogger } from '../support/collect';
import { COLLECTORS } from '../../src/collectors/registry';

/** Answers the cluster list when `answerClusters`, with an empty one; accepts and never answers anything else. */
let answerClusters = false;
let server: Server;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (answerClusters && req.url?.startsWith('/api/v1/rep-clusters')) res.setHeader('content-type', 'application/json').end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function runOnly(collector: 'clusters' | 'vms'): Promise<string> {
  const others = { clusters: { enabled: false }, vms: { enabled: false }, groups: { enabled: false } };
  const config = parseConfig({
    targets: [{
      name: 'rp', kind: 'replication', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, username: 'u', password: 'p',
      requestTimeout: '1s', collectors: { ...others, [collector]: { timeout: '500ms' } },
    }],
  });
  const runtime = new ExporterRuntime(config, { logger: silentLogger });
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => config.collection.staleAfter);
  try {
    expect(await runtime.runOnce()).toEqual(['failure']);
    expect(runtime.store.get('rp', collector)?.lastError).toMatch(/did not finish within its time limit of 500 ms/);
    return await renderer.render();
  } finally {
    await runtime.stop();
  }
}

it('a source that answers none of a run its time limit ends is down', async () => {
  answerClusters = false;
  expect(await runOnly('clusters')).toContain('dataprotect_up{target="rp",kind="replication"} 0');
});

it('a source that answered part of such a run was slow, not down', async () => {
  answerClusters = true; // the vms collector asks the cluster list first, for the spelling
  expect(await runOnly('vms')).toContain('dataprotect_up{target="rp",kind="replication"} 1');
});

/**
 * A token API's runs share one login, and a storage target's one discovery: the run that starts it counts its requests, and a run
 * that waits on it (another collector's, or the next run of the same collector while the hung login still runs) sent none itself.
 */
it.each([
  ['management', 'inventory-sources'],
  ['storage', 'alerts'],
] as const)('a %s source that hangs at its login is down also for a run waiting on the login another run started', async (kind, collector) => {
  const disabled = Object.fromEntries(COLLECTORS[kind].map((definition) => [definition.name, { enabled: false }]));
  const config = parseConfig({
    targets: [{
      name: 'src', kind, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, username: 'u', password: 'p',
      // the login outlives both runs: the second one waits on the login the first one started
      requestTimeout: '5s', maxAttempts: 1, collectors: { ...disabled, [collector]: { timeout: '300ms' } },
    }],
  });
  const runtime = new ExporterRuntime(config, { logger: silentLogger });
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => config.collection.staleAfter);
  try {
    expect(await runtime.runOnce()).toEqual(['failure']);
    expect(await renderer.render()).toContain(`dataprotect_up{target="src",kind="${kind}"} 0`);
    expect(await runtime.runOnce()).toEqual(['failure']);
    expect(runtime.store.get('src', collector)?.lastError).toMatch(/did not finish within its time limit of 300 ms/);
    expect(await renderer.render()).toContain(`dataprotect_up{target="src",kind="${kind}"} 0`);
  } finally {
    await runtime.stop();
  }
});
