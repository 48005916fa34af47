/**
 * The contract test: the simulator refuses what the products refuse (a filter
 * outside the published grammar, a query parameter an endpoint does not take,
 * random paging past the 10,000th result, a `fields=` name the plugin does
 * not know) and counts each refusal by endpoint and reason. A full collection
 * of the three targets, every collector once, on both API spellings and at
 * 25,000 assets, ends with every collector successful and nothing refused.
 */
import pino from 'pino';
import { COLLECTORS } from '../../src/collectors/registry';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator';

interface Outcome {
  results: string[];
  /** the collectors' failures as logged */
  failures: string[];
  refusals: Record<string, number>;
}

/** Every collector of the management, replication and storage (center) targets once, against `sim`. */
async function collectEverything(sim: RunningSimulator, collection: Record<string, unknown> = {}): Promise<Outcome> {
  const credentials = { username: sim.username, password: sim.password, pageSize: 1000 };
  const config = parseConfig({
    collection,
    targets: [
      { name: 'backup', kind: 'management', url: sim.urls.management, ...credentials },
      { name: 'replication', kind: 'replication', url: sim.urls.replication, ...credentials },
      { name: 'storage', kind: 'storage', url: sim.urls.storageCenter, storageMode: 'center', ...credentials },
    ],
  });
  const failures: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void failures.push(line.trim()) });
  const runtime = new ExporterRuntime(config, { logger });
  try {
    const results = await runtime.runOnce();
    return { results, failures: failures.filter((line) => line.includes('collection failed')), refusals: sim.stats.refusalCounts() };
  } finally {
    await runtime.stop();
  }
}

async function withSimulator<T>(options: SimulatorOptions, use: (sim: RunningSimulator) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ startTime: new Date('2026-11-18T10:00:00Z'), ...options });
  try {
    return await use(sim);
  } finally {
    await sim.close();
  }
}

/** one run of every collector of the three targets */
const EVERY_COLLECTOR = COLLECTORS.management.length + COLLECTORS.replication.length + COLLECTORS.storage.length;

const SMALL = { assets: 600, replicatedVms: 40, storageSystems: 3, activitiesPerDay: 300, auditEntries: 200, auditEntriesPerDay: 50 };

describe.each([
  ['seed', { apiSpelling: 'seed', managementTypeNames: 'seed' }],
  ['product', { apiSpelling: 'product', managementTypeNames: 'product' }],
] as const)('a full collection against the strict simulator, %s spelling', (_, spelling) => {
  it('succeeds in every collector and is refused nothing', async () => {
    const outcome = await withSimulator({ seed: 29, size: SMALL, ...spelling }, (sim) => collectEverything(sim));
    expect(outcome.results).toHaveLength(EVERY_COLLECTOR);
    expect({ failures: outcome.failures, refusals: outcome.refusals }).toEqual({ failures: [], refusals: {} });
    expect(outcome.results.every((result) => result === 'success')).toBe(true);
  }, 120_000);
});

it('at 25,000 assets, every collector succeeds with no request refused (copy-metrics read to its 10,000th row)', async () => {
  // One copy an asset keeps the estate's generation and the copies listings short; the listings over 10,000 results are what counts here.
  const size = { ...SMALL, assets: 25_000, copiesPerAsset: 1, activitiesPerDay: 1000 };
  const outcome = await withSimulator({ seed: 29, size, apiSpelling: 'product', managementTypeNames: 'product' }, (sim) => collectEverything(sim, { perAssetSeries: 'protected' }));
  expect({ failures: outcome.failures, refusals: outcome.refusals }).toEqual({ failures: [], refusals: {} });
  expect(outcome.results).toHaveLength(EVERY_COLLECTOR);
  expect(outcome.results.every((result) => result === 'success')).toBe(true);
}, 600_000);

describe('the refused forms, each answered 400 with the service error body and counted', () => {
  let sim: RunningSimulator;
  let token: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 29, size: { assets: 50, replicatedVms: 5, storageSystems: 1 }, apiSpelling: 'product' });
    const login = await fetch(`${sim.urls.management}/api/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: sim.username, password: sim.password }),
    });
    token = ((await login.json()) as { access_token: string }).access_token;
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
  });

  const management = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${sim.urls.management}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const filtered = (path: string, filter: string): string => `${path}?filter=${encodeURIComponent(filter)}`;
  const someAsset = (): string => (sim.estate.management.assets()[0] as { id: string }).id;

  it.each([
    ['state not in (...)', () => filtered(`/api/v2/assets/${someAsset()}/copies`, 'state not in ("DELETED","SOFT_DELETED")'), /unknown operator not/],
    ['not (a and b)', () => filtered('/api/v2/assets', 'not (type eq "X" and deleted eq true)'), /parentheses group nothing but a list/],
    ['an unknown operator', () => filtered('/api/v2/assets', 'name has "x"'), /unknown operator has/],
    ['an unquoted string', () => filtered('/api/v2/assets', 'name eq web01'), /unquoted string "web01"/],
    ['an empty list', () => filtered('/api/v2/activities', 'id in ()'), /empty list/],
    ['a filter on copy-metrics', () => filtered('/api/v2/copy-metrics', 'assetId lt "8"'), /Unknown query parameter filter/],
    ['page on latest-copies', () => `${filtered('/api/v2/latest-copies', `assetId in ("${someAsset()}")`)}&pageSize=10`, /Unknown query parameter pageSize/],
    ['an unknown parameter', () => '/api/v2/alerts?queryState=BEGIN&expand=all', /Unknown query parameter expand/],
  ])('%s', async (_, path, reason) => {
    sim.stats.reset();
    const answer = await management(path());
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 400, reason: expect.stringMatching(reason), remediation: expect.any(String) });
    expect(Object.keys(sim.stats.refusalCounts())).toEqual([expect.stringMatching(/^management \/api\/v2\/[a-z-/:]+: /)]);
    expect(sim.stats.refusals('management')).toBe(1);
  });

  it('a fields= name the plugin does not know', async () => {
    sim.stats.reset();
    const auth = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
    const res = await fetch(`${sim.urls.replication}/api/v1/groups?fields=name,priority`, { headers: { authorization: auth } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/priority/);
    expect(sim.stats.refusalCounts()).toEqual({ 'replication /api/v1/groups: Unknown field(s) in fields: priority': 1 });
  });
});
