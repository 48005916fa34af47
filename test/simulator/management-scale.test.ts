/**
 * The benchmark-sized management estate (10,000 assets x 20 copies, 100,000
 * activities a day, a million audit entries): generated in seconds and served
 * a page of 1,000 in tens of milliseconds. The timings are printed for the
 * record; only generous bounds are asserted (speed targets belong to
 * `npm run bench`, not to unit tests on a loaded CI machine).
 */
import { SimulatedClock } from '../../src/simulator/core/clock';
import type { SimContext } from '../../src/simulator/core/context';
import { Faults } from '../../src/simulator/core/faults';
import { SeededRandom } from '../../src/simulator/core/random';
import { startApiServer, type ApiServer } from '../../src/simulator/core/server';
import { Stats } from '../../src/simulator/core/stats';
import { createManagementApp, createManagementEstate, managementErrorBody, type ManagementEstate } from '../../src/simulator/management';
import { DEFAULT_ESTATE_SIZE, type EstateSize } from '../../src/simulator/types';

const START = new Date('2026-11-20T10:30:00Z');
const SIZE: EstateSize = { ...DEFAULT_ESTATE_SIZE, assets: 10_000, copiesPerAsset: 20, activitiesPerDay: 100_000, auditEntries: 1_000_000 };

let estate: ManagementEstate;
let clock: SimulatedClock;
let server: ApiServer;
let token: string;
let generationMs: number;
const timings: string[] = [];

beforeAll(async () => {
  clock = new SimulatedClock(START);
  const random = new SeededRandom(2026);
  const started = performance.now();
  estate = createManagementEstate(random, SIZE, clock);
  generationMs = performance.now() - started;
  timings.push(`generation: ${generationMs.toFixed(0)} ms, heap used ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`);
  const faults = new Faults();
  const ctx: SimContext = { clock, faults, random, username: 'admin', password: 'pw', tokenTtlSeconds: 28_800 };
  server = await startApiServer({ api: 'management', app: createManagementApp(estate, ctx), faults, stats: new Stats(), errorBody: managementErrorBody });
  const login = await fetch(`${server.url}/api/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'pw' }) });
  token = ((await login.json()) as { access_token: string }).access_token;
}, 120_000);

afterAll(async () => {
  await server?.close();
  process.stdout.write(`management estate at benchmark size:\n  ${timings.join('\n  ')}\n`);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function timed(label: string, path: string): Promise<any> {
  const started = performance.now();
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  timings.push(`${label}: ${ms.toFixed(0)} ms, ${(text.length / 1e6).toFixed(1)} MB`);
  expect([label, res.status]).toEqual([label, 200]);
  const body = JSON.parse(text);
  // generous: a page of 1,000 takes tens of milliseconds; only a pathological slowdown fails this
  expect(ms).toBeLessThan(10_000);
  return body;
}

it('generates the benchmark estate within a generous bound, with the sizes asked for', () => {
  expect(generationMs).toBeLessThan(60_000);
  expect(estate.assets()).toHaveLength(10_000);
  expect(estate.copyCount()).toBeGreaterThan(10_000 * 20 * 0.75);
  expect(estate.copyCount()).toBeLessThan(10_000 * 20 * 1.25);
  expect(estate.activityCount()).toBeGreaterThan(2 * 100_000 * 0.9);
  expect(estate.activityCount()).toBeLessThan(2 * 100_000 * 1.1);
  expect(estate.auditEntryCount()).toBe(1_000_000);
});

it('serves pages of 1,000 from it', async () => {
  const assets = await timed('assets, random page of 1000', '/api/v2/assets?page=3&pageSize=1000');
  expect(assets.content).toHaveLength(1000);
  const serialAssets = await timed('assets, serial first page of 1000', '/api/v2/assets?queryState=BEGIN&pageSize=1000');
  expect(serialAssets.content).toHaveLength(1000);
  const since = new Date(START.getTime() - 12 * 3_600_000).toISOString();
  const activityFilter = encodeURIComponent(`classType in ("JOB","JOB_GROUP") and startTime ge "${since}"`);
  const activities = await timed('activities, serial page of 1000 (class + time filter)', `/api/v2/activities?queryState=BEGIN&pageSize=1000&filter=${activityFilter}`);
  expect(activities.content).toHaveLength(1000);
  await timed('activities, next serial page', `/api/v2/activities?queryState=${activities.page.queryState}`);
  await timed('activities, serial page of 1000 again (warm)', `/api/v2/activities?queryState=BEGIN&pageSize=1000&filter=${activityFilter}`);
  await timed('assets, random page of 1000 again (warm)', '/api/v2/assets?page=4&pageSize=1000');
  const auditFilter = encodeURIComponent(`changedTime ge "${new Date(START.getTime() - 3 * 86_400_000).toISOString()}"`);
  const audit = await timed('audit-logs, serial page of 1000 (changedTime filter)', `/api/v2/audit-logs?queryState=BEGIN&pageSize=1000&filter=${auditFilter}`);
  expect(audit.content).toHaveLength(1000);
  // a batch of 100 ids, the filter alone (strict REST validation refuses page and pageSize): the default page holds it
  const ids = estate
    .assets()
    .slice(5000, 5100)
    .map((a) => `"${a.id}"`)
    .join(',');
  const latest = await timed('latest-copies for 100 assets', `/api/v2/latest-copies?filter=${encodeURIComponent(`assetId in (${ids})`)}`);
  expect(latest.content.length).toBeGreaterThan(80);
  const metrics = await timed('copy-metrics, page of 1000', '/api/v2/copy-metrics?page=2&pageSize=1000');
  expect(metrics.content).toHaveLength(1000);
  const compliance = await timed('compliance-details, page of 1000', '/api/v2/compliance-details?pageSize=1000');
  expect(compliance.content).toHaveLength(1000);
});

it('evolves an hour of the benchmark estate quickly', () => {
  const before = estate.activityCount();
  const started = performance.now();
  clock.advance(3_600_000);
  const ms = performance.now() - started;
  timings.push(`clock.advance(1 h): ${ms.toFixed(0)} ms (${estate.activityCount() - before} new activities)`);
  expect(estate.activityCount() - before).toBeGreaterThan(3000);
  expect(ms).toBeLessThan(30_000);
});
