/**
 * The benchmark-sized management estate (10,000 assets x 20 copies, 100,000
 * activities a day, a million audit entries): generated with the sizes asked
 * for, served in pages of 1,000, and evolved by its clock. How fast is the
 * benchmark's business (`npm run bench:requests` prints the generation time
 * and each collector's; `npm run bench` the whole exporter's), not a unit
 * test's on a shared machine.
 */
import { SimulatedClock } from '../../simulator/core/clock';
import type { SimContext } from '../../simulator/core/context';
import { Faults } from '../../simulator/core/faults';
import { SeededRandom } from '../../simulator/core/random';
import { startApiServer, type ApiServer } from '../../simulator/core/server';
import { Stats } from '../../simulator/core/stats';
import { createManagementApp, createManagementEstate, managementErrorBody, type ManagementEstate } from '../../simulator/management';
import { DEFAULT_ESTATE_SIZE, type EstateSize } from '../../simulator/types';

const START = new Date('2026-11-20T10:30:00Z');
const SIZE: EstateSize = { ...DEFAULT_ESTATE_SIZE, assets: 10_000, copiesPerAsset: 20, activitiesPerDay: 100_000, auditEntries: 1_000_000 };

let estate: ManagementEstate;
let clock: SimulatedClock;
let server: ApiServer;
let token: string;

beforeAll(async () => {
  clock = new SimulatedClock(START);
  const random = new SeededRandom(2026);
  estate = createManagementEstate(random, SIZE, clock);
  const faults = new Faults();
  const ctx: SimContext = { clock, faults, random, username: 'admin', password: 'pw', tokenTtlSeconds: 28_800 };
  server = await startApiServer({ api: 'management', app: createManagementApp(estate, ctx), faults, stats: new Stats(), errorBody: managementErrorBody });
  const login = await fetch(`${server.url}/api/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'pw' }) });
  token = ((await login.json()) as { access_token: string }).access_token;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function served(label: string, path: string): Promise<any> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  expect([label, res.status]).toEqual([label, 200]);
  return JSON.parse(text);
}

it('generates the benchmark estate with the sizes asked for', () => {
  expect(estate.assets()).toHaveLength(10_000);
  expect(estate.copyCount()).toBeGreaterThan(10_000 * 20 * 0.75);
  expect(estate.copyCount()).toBeLessThan(10_000 * 20 * 1.25);
  expect(estate.activityCount()).toBeGreaterThan(2 * 100_000 * 0.9);
  expect(estate.activityCount()).toBeLessThan(2 * 100_000 * 1.1);
  expect(estate.auditEntryCount()).toBe(1_000_000);
});

it('serves pages of 1,000 from it', async () => {
  const assets = await served('assets, random page of 1000', '/api/v2/assets?page=3&pageSize=1000');
  expect(assets.content).toHaveLength(1000);
  const serialAssets = await served('assets, serial first page of 1000', '/api/v2/assets?queryState=BEGIN&pageSize=1000');
  expect(serialAssets.content).toHaveLength(1000);
  const since = new Date(START.getTime() - 12 * 3_600_000).toISOString();
  const activityFilter = encodeURIComponent(`classType in ("JOB","JOB_GROUP") and startTime ge "${since}"`);
  const activities = await served('activities, serial page of 1000 (class + time filter)', `/api/v2/activities?queryState=BEGIN&pageSize=1000&filter=${activityFilter}`);
  expect(activities.content).toHaveLength(1000);
  await served('activities, next serial page', `/api/v2/activities?queryState=${activities.page.queryState}`);
  await served('activities, serial page of 1000 again (warm)', `/api/v2/activities?queryState=BEGIN&pageSize=1000&filter=${activityFilter}`);
  await served('assets, random page of 1000 again (warm)', '/api/v2/assets?page=4&pageSize=1000');
  const auditFilter = encodeURIComponent(`changedTime ge "${new Date(START.getTime() - 3 * 86_400_000).toISOString()}"`);
  const audit = await served('audit-logs, serial page of 1000 (changedTime filter)', `/api/v2/audit-logs?queryState=BEGIN&pageSize=1000&filter=${auditFilter}`);
  expect(audit.content).toHaveLength(1000);
  // a batch of 100 ids, the filter alone (strict REST validation refuses page and pageSize): the default page holds it
  const ids = estate
    .assets()
    .slice(5000, 5100)
    .map((a) => `"${a.id}"`)
    .join(',');
  const latest = await served('latest-copies for 100 assets', `/api/v2/latest-copies?filter=${encodeURIComponent(`assetId in (${ids})`)}`);
  expect(latest.content.length).toBeGreaterThan(80);
  const metrics = await served('copy-metrics, page of 1000', '/api/v2/copy-metrics?page=2&pageSize=1000');
  expect(metrics.content).toHaveLength(1000);
  const compliance = await served('compliance-details, page of 1000', '/api/v2/compliance-details?pageSize=1000');
  expect(compliance.content).toHaveLength(1000);
});

it('evolves an hour of the benchmark estate', () => {
  const before = estate.activityCount();
  clock.advance(3_600_000);
  expect(estate.activityCount() - before).toBeGreaterThan(3000);
});
