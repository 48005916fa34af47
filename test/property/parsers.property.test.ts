/**
 * The three clients' response parsers, driven over real HTTP by a tiny local
 * server that answers with generated bodies: well-formed items, and the same
 * items damaged the way real APIs damage them (fields missing, null, of the
 * wrong type, huge strings, unknown enumeration values, negative or huge
 * numbers, unrelated JSON in place of the envelope).
 *
 * The property: a call either
 *   - resolves, and every value it returns is the value the server sent (a
 *     number is the same number or the instant of an ISO 8601 timestamp, a
 *     string is the same string; nothing is made up, nothing dropped but the
 *     listing items recorded as skipped, by their index), or
 *   - rejects with an ApiError whose message stays short;
 * never another exception, a hang or a wrong number. Undamaged bodies must
 * always resolve (so the property cannot pass by rejecting everything).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { ApiError } from '../../src/clients/errors';
import { ManagementClient } from '../../src/clients/management/client';
import { collectAll } from '../../src/clients/management/paging';
import { countingRequests, type RunCount } from '../../src/clients/run-requests';
import { ReplicationClient } from '../../src/clients/replication/client';
import { StorageClient } from '../../src/clients/storage/client';
import { parseConfig, type TargetConfig, type TargetKind } from '../../src/config/load';
import { silentLogger } from '../support/collect';

// ---- the server ---------------------------------------------------------

/** What the server answers to the next data request; later requests of the same call get `rest`. */
let nextBody: { first: unknown; rest: unknown } = { first: null, rest: null };
let served = 0;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/api/v2/login') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"t","expires_in":3600}');
      if (req.url === '/rest/v1.0/auth') return void res.writeHead(req.method === 'POST' ? 201 : 200, { 'x-dd-auth-token': 'tok' }).end();
      if (req.url === '/api/v2/logout') return void res.writeHead(204).end();
      const body = served++ === 0 ? nextBody.first : nextBody.rest;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function target(kind: TargetKind): TargetConfig {
  // The scripted server answers whatever path is asked: a spelling is set, so no request goes to finding one.
  const bySpelling = kind === 'management' ? {} : { apiSpelling: 'seed' };
  const config = parseConfig({
    targets: [{ name: `prop-${kind}`, kind, url: baseUrl, username: 'u', password: 'p', maxAttempts: 1, requestTimeout: '10s', pageSize: 1000, ...bySpelling, ...(kind === 'storage' ? { storageMode: 'appliance' } : {}) }],
  });
  return config.targets[0] as TargetConfig;
}

// ---- shapes and generators -----------------------------------------------

type Field = 'id' | 'string' | 'enum' | 'time' | 'nat' | 'epoch' | 'bool' | 'float' | Shape | [Shape];
interface Shape {
  [field: string]: Field;
}

const iso = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());

function valid(field: Field): fc.Arbitrary<unknown> {
  if (Array.isArray(field)) return fc.array(valid(field[0]), { maxLength: 3 });
  if (typeof field === 'object') return record(field);
  switch (field) {
    case 'id':
      return fc.uuid();
    case 'string':
      return fc.string({ maxLength: 20 });
    case 'enum':
      return fc.constantFrom('OK', 'FAILED', 'PROTECTED', 'ACTIVE', 'CRITICAL', 'LOCAL', 'active', 'NEW_VALUE_FROM_A_LATER_RELEASE');
    case 'time':
      return iso;
    case 'nat':
      return fc.nat();
    case 'epoch':
      return fc.integer({ min: 0, max: 4_102_444_800 });
    case 'float':
      return fc.double({ min: 0, max: 1e6, noNaN: true });
    case 'bool':
      return fc.boolean();
  }
}

function record(shape: Shape): fc.Arbitrary<Record<string, unknown>> {
  const parts = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, valid(field)]));
  // A field the exporter does not know: must be tolerated.
  const all: Record<string, fc.Arbitrary<unknown>> = { ...parts, someFutureField: fc.jsonValue({ maxDepth: 1 }) };
  return fc.record(all, { requiredKeys: Object.keys(shape) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A value of the wrong kind, or an absurd one of the right kind. */
const damage = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant('x'.repeat(200_000)),
  fc.constantFrom(-1, 1e308, -0, 0.5, '12', '2026-11-20', '1', 'not a date', true, [], {}, 'UNKNOWN_ENUM'),
);

/** Damages 1 to 3 fields of some items (or the envelope): returns the damaged body. */
function damaged(body: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(body, fc.array(fc.tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), damage), { minLength: 1, maxLength: 3 })).map(([b, hits]) => {
    const copy = structuredClone(b);
    for (const [path, value] of hits) setAt(copy, path, value);
    return copy;
  });
}

/** Replaces the value reached by choosing keys by index along `path` (wrapping around). */
function setAt(node: unknown, path: number[], value: unknown): void {
  let current = node;
  for (let depth = 0; depth < path.length; depth++) {
    if (current === null || typeof current !== 'object') return;
    const keys = Object.keys(current);
    if (keys.length === 0) return;
    const key = keys[(path[depth] as number) % keys.length] as string;
    const child = (current as Record<string, unknown>)[key];
    if (depth === path.length - 1 || child === null || typeof child !== 'object') {
      if (value === undefined && !Array.isArray(current)) delete (current as Record<string, unknown>)[key];
      else (current as Record<string, unknown>)[key] = value;
      return;
    }
    current = child;
  }
}

// ---- the oracle ----------------------------------------------------------

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Throws unless every value in `output` is the value `input` holds at the same place. */
function expectFaithful(output: unknown, input: unknown, where = 'result'): void {
  if (output === undefined || output === null) {
    if (input !== undefined && input !== null) throw new Error(`${where}: got ${String(output)} for ${JSON.stringify(input).slice(0, 60)}`);
    return;
  }
  if (typeof output === 'number') {
    if (typeof input === 'number' && Object.is(input, output)) return;
    if (typeof input === 'number' && input === output) return; // -0 and 0
    if (typeof input === 'string' && ISO_8601.test(input) && Date.parse(input) === output) return;
    throw new Error(`${where}: number ${output} from ${JSON.stringify(input).slice(0, 60)}`);
  }
  if (typeof output === 'string') {
    if (input === output || (typeof input === 'number' && String(input) === output)) return;
    throw new Error(`${where}: string ${JSON.stringify(output).slice(0, 60)} from ${JSON.stringify(input).slice(0, 60)}`);
  }
  if (typeof output === 'boolean') {
    if (input === output) return;
    throw new Error(`${where}: boolean ${output} from ${JSON.stringify(input).slice(0, 60)}`);
  }
  if (Array.isArray(output)) {
    if (!Array.isArray(input) || input.length !== output.length) throw new Error(`${where}: array of ${output.length} from ${JSON.stringify(input).slice(0, 60)}`);
    output.forEach((item, index) => expectFaithful(item, input[index], `${where}[${index}]`));
    return;
  }
  if (typeof output === 'object') {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new Error(`${where}: object from ${JSON.stringify(input).slice(0, 60)}`);
    for (const [key, value] of Object.entries(output)) expectFaithful(value, (input as Record<string, unknown>)[key], `${where}.${key}`);
    return;
  }
  throw new Error(`${where}: unexpected ${typeof output}`);
}

/**
 * Runs the call against `body`; returns the outcome after checking it is one of the two allowed,
 * with the indexes of the listing items it skipped (the skips name them first: `content[3].size: ...`).
 */
async function outcome(
  body: unknown,
  rest: unknown,
  call: () => Promise<unknown>,
): Promise<{ ok: true; value: unknown; skipped: Set<number> } | { ok: false; error: ApiError }> {
  nextBody = { first: body, rest };
  served = 0;
  const count: RunCount = { requests: 0, answers: 0, skipped: [] };
  try {
    const value = await countingRequests(count, call);
    return { ok: true, value, skipped: new Set(count.skipped.map((item) => Number(/^[A-Za-z_]*\[(\d+)\]/.exec(item.problem)?.[1]))) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw new Error(`not an ApiError: ${String(error)}`, { cause: error });
    expect(error.message.length).toBeLessThan(1000);
    return { ok: false, error };
  }
}

// ---- the listings ----------------------------------------------------------

interface Case {
  name: string;
  kind: TargetKind;
  /** one body for the first answer, from a list of generated items */
  envelope: (items: unknown[]) => unknown;
  /** what later requests of the same listing get: the end of the list */
  rest: unknown;
  item: Shape;
  call: (clients: Clients) => Promise<unknown>;
  /** the input items the result must match, in order (default: all) */
  expected?: (body: unknown) => unknown;
}

interface Clients {
  management: ManagementClient;
  replication: ReplicationClient;
  storage: StorageClient;
}

const serial = (items: unknown[]) => ({ content: items, page: { size: 1000, queryState: 'END' } });
const random = (items: unknown[]) => ({ content: items, page: { size: 1000, number: 1, totalPages: 1, totalElements: items.length } });
const SERIAL_END = { content: [], page: { queryState: 'END' } };
const RANDOM_END = { content: [] };
const system = { id: '0', pathId: '0', name: 's' };
const contentOf = (body: unknown): unknown => (body as { content?: unknown })?.content;
/** The array under `key`; a missing one is the empty list only when paging_info says the list is empty. */
const storageItems = (key: string) => (body: unknown) => {
  const record = body as Record<string, unknown> | null;
  const items = record?.[key];
  const total = (record?.paging_info as { total_entries?: unknown } | null | undefined)?.total_entries;
  return items == null && total === 0 ? [] : items;
};

const CASES: Case[] = [
  {
    name: 'management assets',
    kind: 'management',
    envelope: serial,
    rest: SERIAL_END,
    item: { id: 'id', name: 'string', type: 'enum', size: 'nat', deleted: 'bool', protectionStatus: 'enum', protectionPolicyId: 'id', lastAvailableCopyTime: 'time', updatedAt: 'time', _embedded: { protectionPolicy: { id: 'id', name: 'string', type: 'enum' } } },
    call: (c) => collectAll(c.management.assets()),
    expected: contentOf,
  },
  {
    name: 'management copies',
    kind: 'management',
    envelope: random,
    rest: RANDOM_END,
    item: { id: 'id', size: 'nat', location: 'enum', retentionTime: 'time' },
    call: (c) => collectAll(c.management.assetCopies('a/b c')),
    expected: contentOf,
  },
  {
    name: 'management activities',
    kind: 'management',
    envelope: serial,
    rest: SERIAL_END,
    item: { id: 'id', category: 'enum', classType: 'enum', state: 'enum', updateTime: 'time', startTime: 'time', endTime: 'time', duration: 'nat', result: { status: 'enum', bytesTransferred: 'nat' }, stats: { bytesTransferred: 'nat' } },
    call: (c) => collectAll(c.management.activities()),
    expected: contentOf,
  },
  {
    name: 'management audit logs',
    kind: 'management',
    envelope: serial,
    rest: SERIAL_END,
    item: { id: 'id', auditType: 'enum', changedTime: 'time' },
    call: (c) => collectAll(c.management.auditLogs()),
    expected: contentOf,
  },
  {
    name: 'management copy metrics',
    kind: 'management',
    envelope: random,
    rest: RANDOM_END,
    item: { assetId: 'id', stageCopyMetrics: [{ stageType: 'enum', latestCopyTime: 'time' }] },
    call: (c) => collectAll(c.management.copyMetrics()),
    expected: contentOf,
  },
  {
    name: 'management latest copies',
    kind: 'management',
    envelope: random,
    rest: RANDOM_END,
    item: { assetId: 'id', createTime: 'time' },
    call: (c) => c.management.latestCopies(['a', 'b"c']).then((latest) => latest.copies),
    expected: contentOf,
  },
  {
    name: 'management protection policies',
    kind: 'management',
    envelope: random,
    rest: RANDOM_END,
    item: { id: 'id', name: 'string', type: 'enum', enabled: 'bool', summary: { numberOfAssets: 'nat' } },
    call: (c) => collectAll(c.management.protectionPolicies()),
    expected: contentOf,
  },
  {
    name: 'management alerts',
    kind: 'management',
    envelope: serial,
    rest: SERIAL_END,
    item: { id: 'id', severity: 'enum', acknowledgement: { acknowledgeState: 'enum' } },
    call: (c) => collectAll(c.management.alerts()),
    expected: contentOf,
  },
  {
    name: 'management inventory sources',
    kind: 'management',
    envelope: random,
    rest: RANDOM_END,
    item: { id: 'id', name: 'string', type: 'enum', lastDiscovered: 'time', lastDiscoveryResult: { status: 'enum' } },
    call: (c) => collectAll(c.management.inventorySources()),
    expected: contentOf,
  },
  {
    name: 'replication VMs',
    kind: 'replication',
    envelope: (items) => items,
    rest: [],
    item: { id: 'id', name: 'string', groupName: 'string', repClusterName: 'string', role: 'enum', status: 'enum', guestOsType: 'enum', vmdks: [{ included: 'bool', sizeInMB: 'float' }] },
    call: (c) => c.replication.vms({ fields: ['id', 'name', 'groupName', 'repClusterName', 'role', 'status', 'guestOsType', 'vmdks'] }),
  },
  {
    name: 'replication clusters',
    kind: 'replication',
    envelope: (items) => items,
    rest: [],
    item: { id: 'id', name: 'string', isRegistered: 'bool', connectionStatus: 'enum' },
    call: (c) => c.replication.clusters({ fields: ['id', 'name', 'isRegistered', 'connectionStatus'] }),
  },
  {
    name: 'storage replication contexts',
    kind: 'storage',
    envelope: (items) => ({ contexts: items, paging_info: { current_page: 0, page_entries: items.length, total_entries: items.length, page_size: 1000 } }),
    rest: { contexts: [], paging_info: { total_entries: 0 } },
    item: { id: 'id', mode: 'enum', state: 'enum', enabled: 'bool', connected: 'bool', syncEpoch: 'epoch' },
    call: (c) => c.storage.replicationContexts(system),
    expected: storageItems('contexts'),
  },
  {
    name: 'storage managed systems',
    kind: 'storage',
    envelope: (items) => ({ system: items, paging_info: { current_page: 0, page_entries: items.length, total_entries: items.length, page_size: 1000 } }),
    rest: { system: [], paging_info: { total_entries: 0 } },
    item: { id: 'id', name: 'string', model: 'string', version: 'string' },
    call: (c) => c.storage.managedSystems(),
    expected: storageItems('system'),
  },
];

describe('client response parsers: property tests over HTTP', () => {
  let clients: Clients;
  beforeAll(() => {
    const deps = { logger: silentLogger };
    clients = {
      management: new ManagementClient(target('management'), deps),
      replication: new ReplicationClient(target('replication'), deps),
      storage: new StorageClient(target('storage'), deps),
    };
  });
  afterAll(async () => {
    await Promise.all(Object.values(clients).map((client) => client.close()));
  });

  describe.each(CASES)('$name', (testCase) => {
    const items = fc.array(record(testCase.item), { maxLength: 6 });
    const expectedOf = testCase.expected ?? ((body: unknown) => body);

    it('undamaged bodies (with unknown fields and enumeration values) resolve to exactly what was sent', async () => {
      await fc.assert(
        fc.asyncProperty(items, async (list) => {
          const body = testCase.envelope(list);
          const result = await outcome(body, testCase.rest, () => testCase.call(clients));
          if (!result.ok) throw result.error;
          expect(result.skipped.size).toBe(0);
          expectFaithful(result.value, expectedOf(body));
        }),
        { numRuns: 25 },
      );
    });

    it('damaged bodies give the values sent or a clean ApiError, never a crash or a wrong number', async () => {
      await fc.assert(
        fc.asyncProperty(damaged(items.map((list) => testCase.envelope(list))), async (body) => {
          const result = await outcome(body, testCase.rest, () => testCase.call(clients));
          if (!result.ok) return;
          const expected = expectedOf(body);
          expectFaithful(result.value, Array.isArray(expected) ? expected.filter((_, index) => !result.skipped.has(index)) : expected);
        }),
        { numRuns: 80 },
      );
    });
  });

  it('storage: the newest capacity sample is one of those sent, with its numbers intact', async () => {
    const sample = record({ collection_epoch: 'epoch', physical_capacity: { total: 'nat', used: 'nat', available: 'nat' }, logical_capacity: { used: 'nat' }, compression_factor: 'float' });
    const bodies = fc.oneof(
      fc.array(sample, { maxLength: 4 }).map((list) => ({ stats_capacity: list, paging_info: { total_entries: list.length } })),
      damaged(fc.array(sample, { minLength: 1, maxLength: 4 }).map((list) => ({ stats_capacity: list, paging_info: { total_entries: list.length } }))),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const result = await outcome(body, null, () => clients.storage.latestCapacity(system, 'active'));
        if (!result.ok || result.value === undefined) return;
        const sent = ((body as { stats_capacity: Array<{ collection_epoch: number }> }).stats_capacity ?? []).filter(
          (s) => s && typeof s === 'object' && s.collection_epoch === (result.value as { collection_epoch: number }).collection_epoch,
        );
        expect(sent.length).toBeGreaterThan(0);
        expectFaithful(result.value, sent[0]);
      }),
      { numRuns: 150 },
    );
  });

  it('storage: a per-tier capacity sample gives the figures of the tier asked for, intact, or none', async () => {
    const usage = fc
      .tuple(fc.constantFrom('active', 'cloud', 'total'), record({ physical_capacity: { total: 'nat', used: 'nat', available: 'nat' }, logical_capacity: { used: 'nat' }, compression_factor: 'float' }))
      .map(([tier, figures]) => ({ tier, ...figures }));
    const sample = fc.record({ collection_epoch: valid('epoch'), tier_capacity_usage: fc.array(usage, { maxLength: 3 }) });
    const envelope = (list: unknown[]) => ({ stats_capacity: list, paging_info: { total_entries: list.length } });
    const bodies = fc.oneof(fc.array(sample, { maxLength: 3 }).map(envelope), damaged(fc.array(sample, { minLength: 1, maxLength: 3 }).map(envelope)));
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const result = await outcome(body, null, () => clients.storage.latestCapacity(system, 'active'));
        if (!result.ok || result.value === undefined) return;
        const { collection_epoch: epoch, ...figures } = result.value as { collection_epoch: number };
        const sent = ((body as { stats_capacity: Array<{ collection_epoch: number; tier_capacity_usage: unknown }> }).stats_capacity ?? []).find(
          (s) => s && typeof s === 'object' && s.collection_epoch === epoch,
        );
        // a damaged body may hold null entries, or no list, beside the entry the client read: the active one
        const entries = Array.isArray(sent?.tier_capacity_usage) ? (sent.tier_capacity_usage as Array<{ tier?: string } | null>) : [];
        const active = entries.find((entry) => entry !== null && typeof entry === 'object' && entry.tier === 'active');
        expect(active).toBeDefined();
        expectFaithful(figures, active);
      }),
      { numRuns: 150 },
    );
  });

  it('storage: active alerts are exactly the active ones sent', async () => {
    const alert = record({ id: 'id', name: 'string', severity: 'enum', class: 'string', status: 'enum', alert_gen_epoch: 'epoch' });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(alert, { maxLength: 6 }), damaged(fc.array(alert, { minLength: 1, maxLength: 6 }))), async (list) => {
        const body = { alert_list: list, paging_info: { total_entries: Array.isArray(list) ? list.length : 0 } };
        const result = await outcome(body, { alert_list: [], paging_info: { total_entries: 0 } }, () => clients.storage.activeAlerts(system));
        if (!result.ok) return;
        // an alert without a status (optional in the model) was served for status=active, and counts
        const sent = (list as Array<{ status?: string | null }>).filter((_, index) => !result.skipped.has(index));
        const active = sent.filter((a) => a.status == null || a.status.toLowerCase() === 'active');
        expectFaithful(result.value, active);
      }),
      { numRuns: 150 },
    );
  });
});
