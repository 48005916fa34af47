/**
 * The seed's rule "do not use random paging for results above 10000
 * resources in total", on an estate whose random-only listings pass it:
 * the simulator refuses as the service does, and every listing that offers
 * only random paging is still read whole, each row once, with no request
 * refused. (The 25,000-asset estate with every collector is in
 * `npm run bench:requests -- --assets 25000`; this one is sized to keep the
 * suite quick while every listing here is over 10,000.)
 */
import { ApiError } from '../../../src/clients/errors';
import { collectAll } from '../../../src/clients/management/paging';
import { copySchema } from '../../../src/clients/management/schemas';
import { assetsCollector } from '../../../src/collectors/management/assets';
import { complianceCollector } from '../../../src/collectors/management/compliance';
import { copyMetricsCollector } from '../../../src/collectors/management/copy-metrics';
import { inventorySourcesCollector } from '../../../src/collectors/management/inventory-sources';
import { protectionPoliciesCollector } from '../../../src/collectors/management/protection-policies';
import { COPY_FINGERPRINTS, type CopyFingerprints } from '../../../src/collectors/management/published';
import type { RunningSimulator } from '../../../simulator';
import { managementHarness, run, startManagementSimulator } from './helpers';

const PAGE_SIZE = 1000;
const LIMIT = 10_000;

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 11_000, copiesPerAsset: 1, activitiesPerDay: 100, auditEntries: 100, auditEntriesPerDay: 10 });
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

beforeEach(() => sim.stats.reset());

/** the listing's rows the simulator holds: non-deleted assets for copy-metrics */
function copyMetricsTruth(): number {
  return sim.estate.management.assets().filter((asset) => !asset.deleted).length;
}

it('refuses a random page past the 10,000th result with the service error body, and counts the refusal', async () => {
  const h = managementHarness(sim, { pageSize: PAGE_SIZE });
  expect(copyMetricsTruth()).toBeGreaterThan(LIMIT);
  // the first 10,000 results of the larger query are served
  const within = await h.client.fetchJson({ endpoint: '/api/v2/copy-metrics', path: `/api/v2/copy-metrics?page=${LIMIT / PAGE_SIZE}&pageSize=${PAGE_SIZE}` });
  expect((within.body as { content: unknown[] }).content).toHaveLength(PAGE_SIZE);
  expect(sim.stats.refusals('management')).toBe(0);

  const token = await login();
  const past = await fetch(`${sim.urls.management}/api/v2/copy-metrics?page=${LIMIT / PAGE_SIZE + 1}&pageSize=${PAGE_SIZE}`, { headers: { authorization: `Bearer ${token}` } });
  expect(past.status).toBe(400);
  const body = (await past.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ code: 400, path: '/api/v2/copy-metrics', extendedInfo: null });
  expect(body.reason).toMatch(/random paging is not available for results above 10000/);
  expect(typeof body.remediation).toBe('string');
  expect(sim.stats.refusals('management')).toBe(1);
  await h.client.close();
});

it('reads copy-metrics up to the 10,000th row, its only documented means, without a refusal', async () => {
  const h = managementHarness(sim, { pageSize: PAGE_SIZE });
  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared });
  expect(copyMetricsTruth()).toBeGreaterThan(LIMIT);
  const copyMetrics = await run(copyMetricsCollector, sim, h, { shared });
  // page and pageSize only: the rows past the 10,000th cannot be read, and their assets have no series
  expect(copyMetrics.items).toBe(LIMIT);
  expect((shared.get(COPY_FINGERPRINTS.id) as CopyFingerprints).byAsset.size).toBe(LIMIT);
  const sent = h.requests.filter((r) => r.endpoint === '/api/v2/copy-metrics');
  expect(sent).toHaveLength(LIMIT / PAGE_SIZE);
  expect(sim.stats.refusalCounts()).toEqual({});
  await h.client.close();
}, 60_000);

it('reads compliance-details over 10,000 results whole, each row once, near the lower bound of requests', async () => {
  const h = managementHarness(sim, { pageSize: PAGE_SIZE });
  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared });

  // The listing is the verification history; the counts are of each asset and stage's latest result.
  const complianceRows = sim.estate.management.complianceHistory().length;
  const complianceTruth = sim.estate.management.compliance();
  expect(complianceRows).toBeGreaterThan(LIMIT);
  const compliance = await run(complianceCollector, sim, h, { shared });
  expect(compliance.items).toBe(complianceRows);
  const expected = new Map<string, number>();
  for (const detail of complianceTruth) {
    const key = `${detail.policyName}|${detail.status}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const counted = new Map(compliance.samples.filter((s) => s.value > 0).map((s) => [`${s.labels.policy}|${s.labels.status}`, s.value]));
  expect(counted).toEqual(expected);

  expect(sim.stats.refusals('management')).toBe(0);
  // the lower bound plus the discarded first page of the whole query and one partly filled page per range (and `assetId eq null`)
  for (const [endpoint, truth, extraRanges] of [['/api/v2/compliance-details', complianceRows, 1]] as const) {
    const sent = h.requests.filter((r) => r.endpoint === endpoint);
    expect(sent.every((r) => r.code === '200')).toBe(true);
    const ranges = Math.ceil(truth / 9000) + extraRanges;
    expect(sent.length).toBeGreaterThanOrEqual(Math.ceil(truth / PAGE_SIZE));
    expect(sent.length).toBeLessThanOrEqual(Math.ceil(truth / PAGE_SIZE) + 1 + ranges);
  }
  await h.client.close();
}, 60_000);

it('still reads the small random-only listings with one request each', async () => {
  const h = managementHarness(sim, { pageSize: PAGE_SIZE });
  const shared = new Map<string, unknown>();
  const policies = await run(protectionPoliciesCollector, sim, h, { shared });
  expect(policies.items).toBe(sim.estate.management.policies().length);
  const sources = await run(inventorySourcesCollector, sim, h, { shared });
  expect(sources.items).toBe(sim.estate.management.inventorySources().length);
  expect(h.requests.map((r) => r.endpoint).sort()).toEqual(['/api/v2/inventory-sources', '/api/v2/login', '/api/v2/protection-policies']);
  expect(sim.stats.refusals('management')).toBe(0);
  await h.client.close();
});

it("reads an asset's copies over 10,000 whole, each copy once", async () => {
  const assetId = assetWithManyCopies();
  const truth = sim.estate.management.copies(assetId).map((copy) => copy.id);
  expect(truth.length).toBeGreaterThan(LIMIT);

  const h = managementHarness(sim, { pageSize: PAGE_SIZE });
  const read = (await collectAll(h.client.assetCopies(assetId))).map((copy) => copy.id);
  expect(read).toHaveLength(truth.length);
  expect(new Set(read)).toEqual(new Set(truth));
  expect(sim.stats.refusals('management')).toBe(0);
  await h.client.close();
}, 60_000);

it('fails a listing rather than ask past the 10,000th result when a range cannot be split', async () => {
  const h = managementHarness(sim, { pageSize: PAGE_SIZE });
  const assetId = assetWithManyCopies();
  // every copy of one asset has the same assetId, so ranges of assetId cannot part them
  const listing = h.client.partitionedPages('/api/v2/assets/{id}/copies', copySchema, {}, { field: 'assetId', nullable: false }, undefined, `/api/v2/assets/${assetId}/copies`);
  const failure = await collectAll(listing).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ApiError);
  expect((failure as ApiError).message).toMatch(/cannot be split further/);
  expect(sim.stats.refusals('management')).toBe(0);
  await h.client.close();
}, 60_000);

/** an asset given more than 10,000 copies (once per file) */
function assetWithManyCopies(): string {
  const management = sim.estate.management;
  const crowded = management.assets().find((a) => management.copies(a.id).length > LIMIT);
  if (crowded) return crowded.id;
  const asset = management.assets().find((a) => !a.deleted) as { id: string };
  const start = sim.clock.now().getTime();
  for (let i = 0; i < LIMIT + 500; i++) management.addCopy(asset.id, { createTime: new Date(start - (i + 1) * 60_000) });
  return asset.id;
}

async function login(): Promise<string> {
  const res = await fetch(`${sim.urls.management}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: sim.username, password: sim.password }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
