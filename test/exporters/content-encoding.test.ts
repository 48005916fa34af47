/**
 * The gzip a scrape sends is one gzip member: browsers, curl --compressed and wget read the first member of a Content-Encoding: gzip
 * body only (Chromium ignores the bytes after its trailer; curl fails with error 23), and would show a few lines as the whole exposition.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { gunzipSync as firstMemberOnly } from 'fflate';
import { request } from 'undici';
import type { Sample } from '../../src/collectors/types';
import { parseConfig } from '../../src/config/load';
import { closeServer, listen } from '../../src/exporters/listener';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { createHttpApp } from '../../src/exporters/app';
import { SnapshotStore } from '../../src/snapshot/store';
import { familyMember, prepareResult } from '../../src/exporters/prepared';
import type { ReadyResult } from '../../src/snapshot/store';
import { silentLogger } from '../support/collect';

const web = parseConfig({
  web: { listenAddress: '127.0.0.1', port: 0 },
  targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }],
}).web;

/** Enough series that a family takes several members of its own (512 KB of text each). */
const samples: Sample[] = Array.from({ length: 30_000 }, (_, i) => ({
  name: 'dataprotect_asset_size_bytes',
  labels: { target: 't', asset_id: `a${i}`, asset_name: `asset ${i} ${'x'.repeat(i % 40)}`, asset_type: 'VM', policy: 'gold' },
  value: i,
}));

describe('a gzip scrape read by a decoder of one member', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const store = new SnapshotStore();
    store.register('t', 'management', 'assets', 120);
    store.runStarted('t', 'assets');
    store.runFinished('t', 'assets', { ok: true, durationSeconds: 1, endedAt: Date.now(), result: prepareResult({ samples }) });
    const renderer = new MetricsRenderer(() => store, new SelfMetrics(), () => 600_000);
    const app = createHttpApp({ renderer, store: () => store, targetNames: () => ['t'], isReady: () => true, logger: silentLogger });
    server = await listen(app, web);
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    if (server) await closeServer(server);
  });

  it.each(['/metrics', '/probe?target=t'])('gets the whole exposition of %s, as without gzip', async (path) => {
    const plain = await (await request(`${base}${path}`)).body.text();
    const zipped = await request(`${base}${path}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const body = Buffer.from(await zipped.body.arrayBuffer());
    expect(Number(zipped.headers['content-length'])).toBe(body.length);
    const seen = Buffer.from(firstMemberOnly(body)).toString('utf8');
    // Process metrics (their values move between two scrapes) aside, the same lines.
    const stable = (text: string): string => text.split('\n').filter((line) => !/^(# (HELP|TYPE) )?(process|nodejs)_/.test(line)).join('\n');
    expect(seen.split('\n').filter((line) => line.startsWith('dataprotect_asset_size_bytes{')).length).toBe(samples.length);
    expect(stable(seen) === stable(plain)).toBe(true);
    expect(gunzipSync(body).toString('utf8')).toBe(seen);
  });
});

describe('members prepared in the collection thread (fflate)', () => {
  it('decode whole with one member per family, of every size a family grows to', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      require(workerData.loader);
      const { prepareResult } = require(workerData.prepared);
      const samples = Array.from({ length: workerData.count }, (_, i) => ({
        name: 'dataprotect_asset_size_bytes',
        labels: { target: 't', asset_id: 'a' + i, asset_name: 'asset ' + i + ' ' + 'x'.repeat(i % 40), asset_type: 'VM', policy: 'gold' },
        value: i,
      }));
      const result = prepareResult({ samples });
      parentPort.postMessage(result, [result.bytes.buffer]);`;
    const loader = require.resolve('tsx/cjs');
    const prepared = join(__dirname, '..', '..', 'src', 'exporters', 'prepared.ts');
    for (const count of [1, 300, 3_000, 30_000]) {
      const worker = new Worker(source, { eval: true, workerData: { loader, prepared, count } });
      const result = await new Promise<ReadyResult>((resolve, reject) => worker.once('message', resolve).once('error', reject));
      await worker.terminate();
      const member = familyMember(result, 'dataprotect_asset_size_bytes') as Buffer;
      const text = Buffer.from(firstMemberOnly(member)).toString('utf8');
      expect(text.split('\n').filter((line) => line.startsWith('dataprotect_asset_size_bytes{')).length).toBe(count);
      expect(gunzipSync(member).toString('utf8')).toBe(text);
    }
  });
});
