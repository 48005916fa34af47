/**
 * A management service that pages forever, beside a healthy one, through one
 * collection round of the whole runtime (every management collector): the
 * requests it receives are counted on the server and stay within a few
 * hundred, each listing fails with an error naming the endpoint and what the
 * service did, and the healthy target is collected as usual.
 *
 * Two ways of never ending: empty pages (serial: a fresh queryState each
 * time, never END; random: a billion pages claimed), and full pages of valid
 * items forever (serial: fresh tokens; random: a billion pages claimed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';

type Mode = 'empty' | 'full';

const SERIAL_LISTINGS = new Set(['/api/v2/assets', '/api/v2/activities', '/api/v2/audit-logs', '/api/v2/alerts']);
const CLAIMED_PAGES = 1_000_000_000;

/** One item every serial listing's schema accepts (unknown fields are ignored). */
function item(id: number): Record<string, unknown> {
  const time = '2026-11-20T10:00:00Z';
  return {
    id: `item-${id}`,
    name: `item ${id}`,
    type: 'VMWARE_VIRTUAL_MACHINE',
    lastAvailableCopyTime: null,
    category: 'PROTECT',
    state: 'COMPLETED',
    updateTime: time,
    auditType: 'LOGIN',
    changedTime: time,
    severity: 'INFO',
  };
}

/** A management service whose listings never end; counts requests by path. */
class EndlessPagingServer {
  readonly requests = new Map<string, number>();
  /** serial listings started (queryState=BEGIN) */
  listingsBegun = 0;
  private server: Server | undefined;
  private nextId = 0;
  private nextToken = 0;

  constructor(private readonly mode: Mode) {}

  get total(): number {
    let sum = 0;
    for (const count of this.requests.values()) sum += count;
    return sum;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.requests.set(url.pathname, (this.requests.get(url.pathname) ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(this.answer(url)));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private answer(url: URL): unknown {
    if (url.pathname === '/api/v2/login') return { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 };
    const pageSize = Number(url.searchParams.get('pageSize') ?? 1);
    const content = this.mode === 'full' ? Array.from({ length: pageSize }, () => item(this.nextId++)) : [];
    if (url.searchParams.has('queryState')) {
      if (url.searchParams.get('queryState') === 'BEGIN') this.listingsBegun += 1;
      return { content, page: { size: pageSize, queryState: `token-${this.nextToken++}` } };
    }
    return { content, page: { number: Number(url.searchParams.get('page') ?? 1), size: pageSize, totalPages: CLAIMED_PAGES } };
  }
}

describe('a management service that pages forever', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: { assets: 5, replicatedVms: 4, replicationClusters: 1, storageSystems: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  async function oneRound(mode: Mode, targetSettings: Record<string, unknown>): Promise<{ server: EndlessPagingServer; runtime: ExporterRuntime }> {
    const server = new EndlessPagingServer(mode);
    const url = await server.start();
    const config = parseConfig({
      targets: [
        { name: 'endless', kind: 'management', url, username: 'u', password: 'p', ...targetSettings },
        { name: 'healthy', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password },
      ],
    });
    const runtime = new ExporterRuntime(config, { logger: silentLogger });
    try {
      await runtime.runOnce();
    } finally {
      await runtime.stop();
      await server.close();
    }
    return { server, runtime };
  }

  it('empty pages with fresh tokens and a billion pages claimed: one round sends it a few dozen requests', async () => {
    const { server, runtime } = await oneRound('empty', {});
    const records = runtime.store.all();
    expect(records.filter((r) => r.target === 'healthy').every((r) => r.lastRunSucceeded)).toBe(true);
    const endless = records.filter((r) => r.target === 'endless');
    expect(endless.length).toBeGreaterThan(5);
    // Each listing stops at its first page: the serial ones at the empty page without END, the random ones at the claim.
    expect(server.total).toBeLessThanOrEqual(100);
    let serialRequests = 0;
    for (const path of SERIAL_LISTINGS) serialRequests += server.requests.get(path) ?? 0;
    expect(server.listingsBegun).toBeGreaterThan(0);
    expect(serialRequests).toBe(server.listingsBegun);
    const errors = endless.filter((r) => !r.lastRunSucceeded).map((r) => r.lastError);
    expect(errors).toContainEqual(expect.stringMatching(/^\/api\/v2\/assets: serial paging: page 1 is empty but its queryState is not END/));
    expect(errors).toContainEqual(
      expect.stringMatching(/^\/api\/v2\/protection-policies: random paging: the service claims 1000000000 pages: more than 2000 pages of 1000, the bound maxListingItems \(2000000\) sets/),
    );
  });

  it('full pages forever: each serial listing stops at maxListingItems / pageSize pages, the round at a few hundred requests', async () => {
    const { server, runtime } = await oneRound('full', { pageSize: 50, maxListingItems: 1000 });
    const records = runtime.store.all();
    expect(records.filter((r) => r.target === 'healthy').every((r) => r.lastRunSucceeded)).toBe(true);
    const bound = 1000 / 50;
    let serialRequests = 0;
    for (const path of SERIAL_LISTINGS) serialRequests += server.requests.get(path) ?? 0;
    expect(server.listingsBegun).toBeGreaterThan(0);
    expect(serialRequests).toBeLessThanOrEqual(server.listingsBegun * bound);
    expect(server.total).toBeLessThanOrEqual(300);
    const errors = records.filter((r) => r.target === 'endless' && !r.lastRunSucceeded).map((r) => r.lastError);
    expect(errors).toContainEqual(expect.stringMatching(/^\/api\/v2\/assets: serial paging did not reach END after 20 pages: more than 20 pages of 50, the bound maxListingItems \(1000\) sets/));
  });
});
