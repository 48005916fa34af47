/**
 * What the simulator cannot be made to do: a scripted storage server on
 * loopback records every request (headers, bodies) and answers shapes that
 * break the API's contract, so the client's checks are exercised for real.
 */
import http from 'node:http';
import { countingRequests, type RunCount } from '../../src/clients/run-requests';
import type { AddressInfo } from 'node:net';
import type { ApiError } from '../../src/clients/errors';
import type { RequestObserver } from '../../src/clients/http';
import { StorageClient } from '../../src/clients/storage/client';
import { parseConfig, type TargetConfig } from '../../src/config/load';
import { silentLogger } from '../support/collect';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (req: Seen) => { status: number; body?: unknown; raw?: string; headers?: Record<string, string> };

const clientFor = (target: TargetConfig, observer?: RequestObserver) =>
  new StorageClient(target, { logger: silentLogger, ...(observer ? { observer } : {}) });

const SYSTEM = { name: 'dd-solo', uuid: 'aaaa:bbbb', model: 'DD6900', version: '7.13' };

describe('StorageClient on the wire', () => {
  let server: http.Server;
  let seen: Seen[];
  let handler: Handler;
  let client: StorageClient;

  const target = (overrides: Record<string, unknown> = {}): TargetConfig => {
    const { port } = server.address() as AddressInfo;
    const config = parseConfig({
      targets: [{ name: 'wire', kind: 'storage', url: `http://127.0.0.1:${port}`, username: 'monitor', password: 's3cret!', maxAttempts: 1, ...overrides }],
    });
    return config.targets[0] as TargetConfig;
  };

  /** login, system details and an appliance that lists only itself unless the test's handler answers first */
  const withDefaults =
    (handle: Handler): Handler =>
    (req) => {
      const path = req.url.split('?')[0];
      if (req.method === 'POST' && path === '/rest/v1.0/auth') return { status: 201, body: { code: 0 }, headers: { 'X-DD-AUTH-TOKEN': 'tok-1' } };
      if (req.method === 'DELETE' && path === '/rest/v1.0/auth') return { status: 200, body: { code: 0 } };
      const answer = handle(req);
      if (answer.status !== 404) return answer;
      if (path === '/rest/v1.0/system') return { status: 200, body: SYSTEM };
      if (path === '/rest/v1.0/store-systems') return { status: 200, body: { system: [{ id: 'aaaa:bbbb', name: 'dd-solo' }], paging_info: { current_page: 0, page_entries: 1, total_entries: 1, page_size: 1000 } } };
      return answer;
    };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        seen.push(request);
        const answer = handler(request);
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.raw ?? JSON.stringify(answer.body ?? {}));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen = [];
    handler = withDefaults(() => ({ status: 404 }));
    client = clientFor(target());
  });
  afterEach(async () => {
    await client.close();
  });

  it('sends Accept: application/json on every request, the credentials only to the login, the token on the rest', async () => {
    handler = withDefaults((req) =>
      req.url.startsWith('/rest/v1.0/store-systems/0/alerts') ? { status: 200, body: { alert_list: [], paging_info: { current_page: 0, total_entries: 0 } } } : { status: 404 },
    );
    const { systems } = await client.discover();
    await client.activeAlerts(systems[0]!);
    await client.close();
    expect(seen.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(
      expect.arrayContaining(['POST /rest/v1.0/auth', 'GET /rest/v1.0/system', 'GET /rest/v1.0/store-systems/0/alerts', 'DELETE /rest/v1.0/auth']),
    );
    for (const request of seen) expect(request.headers.accept).toBe('application/json');
    const login = seen.find((r) => r.method === 'POST')!;
    expect(JSON.parse(login.body)).toEqual({ username: 'monitor', password: 's3cret!' });
    for (const request of seen.filter((r) => r.method !== 'POST')) {
      expect(request.headers['x-dd-auth-token']).toBe('tok-1');
      expect(request.body).not.toContain('s3cret!');
    }
    expect(seen.find((r) => r.url.includes('/alerts'))?.url).toBe('/rest/v1.0/store-systems/0/alerts?filter=status%3Dactive&page=0&size=200'); // pageSize 1000, asked at most 200
  });

  it('encodes a listed id once, even when the list gives it encoded already', async () => {
    handler = withDefaults((req) => {
      if (req.url.startsWith('/rest/v1.0/store-systems?')) {
        return { status: 200, body: { system: [{ id: 'cccc%3Adddd', name: 'one' }, { id: 'eeee:ffff', name: 'two' }], paging_info: { current_page: 0, total_entries: 2 } } };
      }
      if (req.url.includes('/mtree-replications')) return { status: 200, body: { contexts: [] } };
      return { status: 404 };
    });
    const { mode, systems } = await client.discover();
    expect(mode).toBe('center');
    expect(systems.map((s) => [s.id, s.pathId])).toEqual([
      ['cccc:dddd', 'cccc%3Adddd'],
      ['eeee:ffff', 'eeee%3Affff'],
    ]);
    await Promise.all(systems.map((s) => client.replicationContexts(s)));
    expect(seen.filter((r) => r.url.includes('/mtree-replications')).map((r) => r.url.split('?')[0]).sort()).toEqual([
      '/api/v1/store-systems/cccc%3Adddd/mtree-replications',
      '/api/v1/store-systems/eeee%3Affff/mtree-replications',
    ]);
  });

  it('treats a server without a system list as an appliance, and a 5xx on the list as a failure', async () => {
    handler = withDefaults((req) => (req.url.startsWith('/rest/v1.0/store-systems?') ? { status: 404, body: { code: 404 } } : { status: 404 }));
    await expect(client.discover()).resolves.toMatchObject({ mode: 'appliance', systems: [{ id: 'aaaa:bbbb', pathId: '0' }] });

    const other = clientFor(target());
    try {
      handler = withDefaults((req) => (req.url.startsWith('/rest/v1.0/store-systems?') ? { status: 500, body: { details: 'boom' } } : { status: 404 }));
      await expect(other.discover()).rejects.toMatchObject({ kind: 'status', status: 500, message: expect.stringContaining('boom') });
    } finally {
      await other.close();
    }
  });

  it('rejects broken list contracts as protocol errors instead of returning partial data', async () => {
    const system = { id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' };
    const alert = (id: number) => ({ id, severity: 'WARNING', class: 'Filesystem', status: 'active' });

    // a full page without paging_info: the rest cannot be found
    handler = withDefaults((req) => (req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(1), alert(2)] } } : { status: 404 }));
    const small = clientFor(target({ pageSize: 2 }));
    try {
      await expect(small.activeAlerts(system)).rejects.toMatchObject({ kind: 'protocol', message: expect.stringContaining('no paging_info') });

      // a server that ignores page and answers page 0 again
      handler = withDefaults((req) =>
        req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(1), alert(2)], paging_info: { current_page: 0, total_entries: 5, page_size: 2 } } } : { status: 404 },
      );
      await expect(small.activeAlerts(system)).rejects.toMatchObject({ kind: 'protocol', message: expect.stringContaining('asked for page 1 and got page 0') });
    } finally {
      await small.close();
    }

    // an item whose severity is of the wrong type (the model leaves it optional; a number is no severity)
    handler = withDefaults((req) =>
      req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(1), { id: 2, status: 'active', severity: 3 }], paging_info: { total_entries: 2 } } } : { status: 404 },
    );
    const count: RunCount = { requests: 0, answers: 0, skipped: [] };
    await expect(countingRequests(count, () => client.activeAlerts(system))).resolves.toEqual([expect.objectContaining({ id: '1' })]);
    expect(count.skipped).toEqual([expect.objectContaining({ endpoint: '/rest/v1.0/store-systems/{id}/alerts', id: '2', problem: expect.stringContaining('alert_list[1].severity') })]);

    // items without the severity and the status the model leaves optional: read, not refused
    handler = withDefaults((req) =>
      req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(1), { id: 2, status: 'active' }, { id: 3, severity: 'DEBUG' }], paging_info: { total_entries: 3 } } } : { status: 404 },
    );
    expect((await client.activeAlerts(system)).map((a) => [a.id, a.severity, a.status])).toEqual([
      ['1', 'WARNING', 'active'],
      ['2', undefined, 'active'],
      ['3', 'DEBUG', undefined],
    ]);
  });

  it('ends a list the server never ends: an empty page short of total_entries, a count or page count past maxListingItems', async () => {
    const system = { id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' };
    const alert = (id: number) => ({ id, severity: 'WARNING', class: 'Filesystem', status: 'active' });
    const alertRequests = () => seen.filter((r) => r.url.includes('/alerts')).length;
    const pageOf = (url: string): number => Number(new URL(url, 'http://x').searchParams.get('page'));
    const bounded = clientFor(target({ pageSize: 2, maxListingItems: 6 }));
    try {
      handler = withDefaults((req) =>
        req.url.includes('/alerts')
          ? { status: 200, body: { alert_list: pageOf(req.url) === 0 ? [alert(1), alert(2)] : [], paging_info: { current_page: pageOf(req.url), total_entries: 5 } } }
          : { status: 404 },
      );
      await expect(bounded.activeAlerts(system)).rejects.toMatchObject({ kind: 'protocol', message: '/rest/v1.0/store-systems/{id}/alerts: page 1 is empty after 2 of the 5 entries the server counts' });
      expect(alertRequests()).toBe(2);

      seen = [];
      handler = withDefaults((req) =>
        req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(1), alert(2)], paging_info: { current_page: pageOf(req.url), total_entries: 1_000_000_000 } } } : { status: 404 },
      );
      await expect(bounded.activeAlerts(system)).rejects.toMatchObject({ kind: 'protocol', message: '/rest/v1.0/store-systems/{id}/alerts: the server counts 1000000000 entries: more than maxListingItems (6)' });
      expect(alertRequests()).toBe(1);

      // one entry a page: within the count, but past the pages 6 entries of 2 take
      seen = [];
      handler = withDefaults((req) =>
        req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(pageOf(req.url))], paging_info: { current_page: pageOf(req.url), total_entries: 6 } } } : { status: 404 },
      );
      await expect(bounded.activeAlerts(system)).rejects.toMatchObject({
        kind: 'protocol',
        message: '/rest/v1.0/store-systems/{id}/alerts: 3 entries after 3 pages: more than 3 pages of 2, the bound maxListingItems (6) sets',
      });
      expect(alertRequests()).toBe(3);
    } finally {
      await bounded.close();
    }
  });

  it('refuses a page that is not the page asked or holds more than the size asked: its alerts would be counted again', async () => {
    const system = { id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' };
    const alert = (id: number) => ({ id, severity: 'CRITICAL', class: 'Filesystem', status: 'active' });
    const pageOf = (url: string): number => Number(new URL(url, 'http://x').searchParams.get('page'));
    const small = clientFor(target({ pageSize: 2 }));
    try {
      // paging_info without current_page, and a server (or proxy) that ignores `page`: always the first two alerts of 5
      handler = withDefaults((req) =>
        req.url.includes('/alerts') ? { status: 200, body: { alert_list: [alert(1), alert(2)], paging_info: { total_entries: 5, page_entries: 2, page_size: 2 } } } : { status: 404 },
      );
      await expect(small.activeAlerts(system)).rejects.toMatchObject({
        kind: 'protocol',
        message: '/rest/v1.0/store-systems/{id}/alerts: asked for page 1 and got the first page again',
      });
      expect(seen.filter((r) => r.url.includes('/alerts'))).toHaveLength(2);

      // without current_page, pages that differ are read whole
      handler = withDefaults((req) => {
        if (!req.url.includes('/alerts')) return { status: 404 };
        const page = pageOf(req.url);
        return { status: 200, body: { alert_list: page < 2 ? [alert(2 * page), alert(2 * page + 1)] : [alert(4)], paging_info: { total_entries: 5 } } };
      });
      expect((await small.activeAlerts(system)).map((a) => a.id)).toEqual(['0', '1', '2', '3', '4']);

      // five alerts on a page of size 2
      handler = withDefaults((req) =>
        req.url.includes('/alerts')
          ? { status: 200, body: { alert_list: [1, 2, 3, 4, 5].map(alert), paging_info: { current_page: 0, total_entries: 5 } } }
          : { status: 404 },
      );
      await expect(small.activeAlerts(system)).rejects.toMatchObject({ kind: 'protocol', message: '/rest/v1.0/store-systems/{id}/alerts: page 0 holds 5 items, pageSize 2' });
    } finally {
      await small.close();
    }
  });

  it('accepts unknown fields and enumeration values', async () => {
    handler = withDefaults((req) =>
      req.url.includes('/alerts')
        ? { status: 200, body: { alert_list: [{ id: 'x1', severity: 'APOCALYPTIC', class: 'NewClass', status: 'active', brand_new: { a: 1 } }], paging_info: { total_entries: 1 }, extra: true } }
        : { status: 404 },
    );
    await expect(client.activeAlerts({ id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' })).resolves.toEqual([
      { id: 'x1', severity: 'APOCALYPTIC', class: 'NewClass', status: 'active' },
    ]);
  });

  it('reads a page whose first entry nests an unknown field 20,000 levels deep: it costs neither the entry nor the list', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    handler = withDefaults((req) =>
      req.url.includes('/alerts')
        ? { status: 200, raw: `{"alert_list":[{"id":"x1","status":"active","extension":${deep}},{"id":"x2","status":"active"}],"paging_info":{"total_entries":2}}` }
        : { status: 404 },
    );
    await expect(client.activeAlerts({ id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' })).resolves.toEqual([
      { id: 'x1', status: 'active' },
      { id: 'x2', status: 'active' },
    ]);
  });

  it('reports a login answered without a token as a protocol error', async () => {
    handler = (req) => (req.method === 'POST' ? { status: 201, body: { code: 0 } } : { status: 404 });
    await expect(client.systemDetails()).rejects.toMatchObject({ kind: 'protocol', endpoint: '/rest/v1.0/auth' });
  });
  describe('capacity samples in either form', () => {
    const SOLO = { id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' };
    const figures = (total: number, used: number) => ({ total, used, available: total - used });
    const answering = (sample: unknown) => {
      handler = withDefaults((req) =>
        req.url.startsWith('/rest/v2.0/store-systems/0/stats/capacity') ? { status: 200, body: { stats_capacity: [sample], paging_info: { total_entries: 1 } } } : { status: 404 },
      );
    };

    it('reads the tier asked for from tier_capacity_usage, and nothing else when that list is there', async () => {
      answering({
        collection_epoch: 1_800_000_000,
        // a top level beside the per-tier list is not read: it could be another tier's or the total
        physical_capacity: figures(999, 1),
        tier_capacity_usage: [
          { tier: 'cloud', physical_capacity: figures(500, 100), logical_capacity: { used: 300 }, compression_factor: 3 },
          { tier: 'active', physical_capacity: figures(1000, 400), logical_capacity: { used: 2000 }, compression_factor: null },
        ],
      });
      await expect(client.latestCapacity(SOLO, 'active')).resolves.toEqual({
        collection_epoch: 1_800_000_000,
        physical_capacity: figures(1000, 400),
        logical_capacity: { used: 2000, total: undefined, available: undefined },
        compression_factor: undefined,
      });
      await expect(client.latestCapacity(SOLO, 'cloud')).resolves.toMatchObject({ physical_capacity: figures(500, 100), compression_factor: 3 });
      await expect(client.latestCapacity(SOLO, 'total')).resolves.toBeUndefined();
    });

    it('rejects a sample with neither form; reads a per-tier entry without its physical capacity (optional in the model)', async () => {
      answering({ collection_epoch: 1_800_000_000 });
      const error = (await client.latestCapacity(SOLO, 'active').catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ kind: 'protocol', endpoint: '/rest/v2.0/store-systems/{id}/stats/capacity' });
      expect(error.message).toContain('neither physical_capacity nor tier_capacity_usage');
      answering({ collection_epoch: 1_800_000_000, tier_capacity_usage: [{ tier: 'active', logical_capacity: { used: 1 } }, { tier: 'archive' }] });
      expect(await client.latestCapacity(SOLO, 'active')).toEqual({ collection_epoch: 1_800_000_000, logical_capacity: { used: 1 } });
    });
  });
  describe('spelling found at first contact (apiSpelling auto)', () => {
    const SOLO = { id: 'aaaa:bbbb', pathId: '0', name: 'dd-solo' };
    const alertPaths = () => seen.filter((r) => r.url.includes('/alerts')).map((r) => r.url.split('?')[0]);

    it('names both spellings when neither answers, and decides nothing', async () => {
      for (let round = 0; round < 2; round++) {
        const error = (await client.activeAlerts(SOLO).catch((e: unknown) => e)) as ApiError;
        expect(error).toMatchObject({ kind: 'status', status: 404, endpoint: '/rest/v1.0/store-systems/{id}/alerts' });
        expect(error.message).toContain('404 in the product spelling too (/rest/v1.0/dd-systems/{id}/alerts)');
      }
      expect(alertPaths()).toEqual(['/rest/v1.0/store-systems/0/alerts', '/rest/v1.0/dd-systems/0/alerts', '/rest/v1.0/store-systems/0/alerts', '/rest/v1.0/dd-systems/0/alerts']);
      expect(client.spelling.known).toBeUndefined();
    });

    it('does not take a 503 of the seed spelling for a missing path', async () => {
      handler = withDefaults((req) => (req.url.includes('/store-systems/0/alerts') ? { status: 503, body: { code: 503 } } : { status: 404 }));
      await expect(client.activeAlerts(SOLO)).rejects.toMatchObject({ kind: 'status', status: 503 });
      expect(alertPaths()).toEqual(['/rest/v1.0/store-systems/0/alerts']);
      expect(client.spelling.known).toBeUndefined();
    });
  });
});
