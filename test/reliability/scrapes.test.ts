/**
 * Scrapes never wait for collections: the exporter under 200 concurrent
 * scrapes keeps answering (while it collects), and a source that hangs (or
 * is slow) never delays /metrics or /probe, before the first collection as
 * well as after.
 */
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { silentLogger } from '../support/collect';

const SIZE = { assets: 60, copiesPerAsset: 3, activitiesPerDay: 2_000, auditEntries: 200, replicatedVms: 20, storageSystems: 2 };

function exporterFor(sim: RunningSimulator, requestTimeout = '20s'): Exporter {
  const common = { username: sim.username, password: sim.password, requestTimeout, maxAttempts: 1 };
  const config = parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    targets: [
      { name: 'mgmt', kind: 'management', url: sim.urls.management, ...common },
      { name: 'repl', kind: 'replication', url: sim.urls.replication, ...common },
      { name: 'store', kind: 'storage', url: sim.urls.storageCenter, storageMode: 'center', ...common },
    ],
  });
  return new Exporter(config, silentLogger, { processMetrics: false });
}

async function get(agent: Agent, url: string): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(15_000) });
  const text = await response.body.text();
  return { status: response.statusCode, ms: performance.now() - started, text };
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('scrapes never wait for collections', () => {
  let sim: RunningSimulator;
  let exporter: Exporter | undefined;
  let agent: Agent;

  beforeEach(async () => {
    sim = await startSimulator({ seed: 5, size: SIZE });
    agent = new Agent({ connections: 250 });
  });

  afterEach(async () => {
    sim.faults.clear();
    await sim.close(); // ends hanging requests, so the exporter's stop is prompt
    await exporter?.stop();
    exporter = undefined;
    await agent.close();
  });

  it('answers 200 concurrent scrapes, complete and consistent, while it collects', async () => {
    exporter = exporterFor(sim);
    await exporter.start();
    const base = exporter.address();
    await waitUntil(async () => (await get(agent, `${base}/metrics`)).text.includes('\ndataprotect_exporter_first_round_complete 1\n'), 30_000);

    sim.clock.advance(10 * 60_000);
    const collecting = exporter.runtime.runOnce();
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(agent, `${base}/metrics`)));
    await collecting;

    expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(200));
    for (const answer of answers) {
      // Every answer is a whole exposition: every target up, the asset series there, ending with a newline.
      expect(answer.text).toContain('dataprotect_up{target="mgmt",kind="management"} 1');
      expect(answer.text).toContain('dataprotect_up{target="store",kind="storage"} 1');
      expect(answer.text).toContain('dataprotect_asset_info{');
      expect(answer.text.endsWith('\n')).toBe(true);
    }
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    expect(slowest).toBeLessThan(10_000);

    // A gzip scraper (Prometheus) gets the same exposition, compressed.
    const plain = await request(`${base}/metrics`, { dispatcher: agent });
    const plainText = await plain.body.text();
    const zipped = await request(`${base}/metrics`, { dispatcher: agent, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const unzipped = gunzipSync(Buffer.from(await zipped.body.arrayBuffer())).toString('utf8');
    const assetLines = (text: string) => text.split('\n').filter((line) => line.startsWith('dataprotect_asset'));
    expect(assetLines(unzipped)).toEqual(assetLines(plainText));
    expect(assetLines(unzipped).length).toBeGreaterThan(60);
  });

  it('a hanging source delays neither /metrics nor /probe: before the first collection and after', async () => {
    // Every management request hangs from the start: the first collection cannot finish.
    sim.faults.add({ api: 'management', fault: { kind: 'hang' } });
    exporter = exporterFor(sim);
    await exporter.start();
    const base = exporter.address();

    const early = await Promise.all(Array.from({ length: 20 }, () => get(agent, `${base}/metrics`)));
    expect(early.every((answer) => answer.status === 200)).toBe(true);
    expect(Math.max(...early.map((answer) => answer.ms))).toBeLessThan(1_000);
    // Ready all the same (it serves scrapes); the hanging first collection shows in a metric.
    expect((await get(agent, `${base}/readyz`)).status).toBe(200);
    expect((await get(agent, `${base}/metrics`)).text).toContain('\ndataprotect_exporter_first_round_complete 0\n');

    // The other targets are collected meanwhile and published.
    await waitUntil(async () => (await get(agent, `${base}/metrics`)).text.includes('dataprotect_up{target="store",kind="storage"} 1'), 30_000);
    const probe = await get(agent, `${base}/probe?target=repl`);
    expect(probe.status).toBe(200);
    expect(probe.ms).toBeLessThan(1_000);
    expect(probe.text).toContain('dataprotect_replication_vms{');

    // While the management collection still hangs, scrapes stay fast.
    const during = await Promise.all(Array.from({ length: 50 }, () => get(agent, `${base}/metrics`)));
    expect(during.every((answer) => answer.status === 200)).toBe(true);
    expect(Math.max(...during.map((answer) => answer.ms))).toBeLessThan(1_000);
    expect(exporter.runtime.store.get('mgmt', 'assets')?.lastRunEndAt).toBeUndefined();
  });

  it('a source that turns slow after a good collection keeps its last values and fast scrapes', async () => {
    exporter = exporterFor(sim, '1s');
    await exporter.start();
    const base = exporter.address();
    await waitUntil(async () => (await get(agent, `${base}/metrics`)).text.includes('\ndataprotect_exporter_first_round_complete 1\n'), 30_000);

    // The next asset listings answer long after the 1 s request time limit. Only the listing: a
    // scheduled collector firing at a minute boundary must not use up the faulted requests.
    sim.faults.add({ api: 'management', path: /^\/api\/v2\/assets$/, times: 4, fault: { kind: 'latency', ms: 5_000 } });
    const collecting = exporter.runtime.runOnce();
    const during = await Promise.all(Array.from({ length: 50 }, () => get(agent, `${base}/metrics`)));
    expect(during.every((answer) => answer.status === 200 && answer.ms < 1_000)).toBe(true);
    expect(during[0]?.text).toContain('dataprotect_asset_info{'); // the last good asset series are still served
    await collecting;
    const after = await get(agent, `${base}/metrics`);
    expect(after.text).toContain('dataprotect_collector_success{target="mgmt",collector="assets"} 0');
    expect(after.text).toContain('dataprotect_asset_info{');
  });
});
