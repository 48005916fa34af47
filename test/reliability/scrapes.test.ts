/**
 * Scrapes never wait for collections: the exporter under 200 concurrent
 * scrapes keeps answering (while it collects), and a source that hangs never
 * delays /metrics or /probe, before the first collection as well as after.
 * "Never delays" is checked by order, not by the clock: the hung requests
 * outlast the test (their time limit is 10 minutes), so a scrape that waited
 * for them would never be answered; each scrape here is answered while the
 * collection it must not wait for is still going.
 */
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { startSimulator, type RunningSimulator } from '../../simulator';
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

/** A hung request's time limit: beyond any test's, so only the test ends a hang. */
const HANG_OUTLASTS_TEST = '10m';

/**
 * A scrape's time limit: a hung scrape still fails its test before jest's 60 s limit, while 200 concurrent scrapes of the plain text,
 * 4 s on an idle 2-core machine, have room on one loaded by the rest of the suite.
 */
const SCRAPE_TIME_LIMIT_MS = 45_000;

async function get(agent: Agent, url: string): Promise<{ status: number; text: string }> {
  const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(SCRAPE_TIME_LIMIT_MS) });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

/** Resolves once the simulator has received `count` requests to `path`. */
async function received(sim: RunningSimulator, path: RegExp, count: number): Promise<void> {
  while (sim.stats.count('management', path) < count) await new Promise((resolve) => setImmediate(resolve));
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
    exporter = exporterFor(sim, HANG_OUTLASTS_TEST);
    await exporter.start();
    const base = exporter.address();
    await received(sim, /./, 1);

    const early = await Promise.all(Array.from({ length: 20 }, () => get(agent, `${base}/metrics`)));
    expect(early.every((answer) => answer.status === 200)).toBe(true);
    // Ready all the same (it serves scrapes); the hanging first collection shows in a metric.
    expect((await get(agent, `${base}/readyz`)).status).toBe(200);
    expect((await get(agent, `${base}/metrics`)).text).toContain('\ndataprotect_exporter_first_round_complete 0\n');

    // The other targets are collected meanwhile and published.
    await waitUntil(async () => (await get(agent, `${base}/metrics`)).text.includes('dataprotect_up{target="store",kind="storage"} 1'), 30_000);
    const probe = await get(agent, `${base}/probe?target=repl`);
    expect(probe.status).toBe(200);
    expect(probe.text).toContain('dataprotect_replication_vms{');

    // While the management collection still hangs, scrapes are answered.
    const during = await Promise.all(Array.from({ length: 50 }, () => get(agent, `${base}/metrics`)));
    expect(during.every((answer) => answer.status === 200)).toBe(true);
    expect(exporter.runtime.store.get('mgmt', 'assets')?.lastRunEndAt).toBeUndefined();
  });

  it('a source that hangs after a good collection keeps its last values and answered scrapes', async () => {
    exporter = exporterFor(sim, HANG_OUTLASTS_TEST);
    await exporter.start();
    const base = exporter.address();
    await waitUntil(async () => (await get(agent, `${base}/metrics`)).text.includes('\ndataprotect_exporter_first_round_complete 1\n'), 30_000);

    // The next asset listings hang. Only the listing: a scheduled collector firing at a minute
    // boundary must not use up the faulted requests.
    const assetListing = /^\/api\/v2\/assets$/;
    sim.faults.add({ api: 'management', path: assetListing, fault: { kind: 'hang' } });
    const listedBefore = sim.stats.count('management', assetListing);
    let collected = false;
    const collecting = exporter.runtime.runOnce().finally(() => (collected = true));
    await received(sim, assetListing, listedBefore + 1);
    const during = await Promise.all(Array.from({ length: 50 }, () => get(agent, `${base}/metrics`)));
    expect(collected).toBe(false); // every scrape was answered while the listing hung
    expect(during.every((answer) => answer.status === 200)).toBe(true);
    for (const answer of during) expect(answer.text).toContain('dataprotect_asset_info{'); // the last good asset series
    await sim.close(); // ends the hang: the listing fails
    await collecting;
    const after = await get(agent, `${base}/metrics`);
    expect(after.text).toContain('dataprotect_collector_success{target="mgmt",collector="assets"} 0');
    expect(after.text).toContain('dataprotect_asset_info{');
  });
});
