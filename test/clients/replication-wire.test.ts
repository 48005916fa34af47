/**
 * A scripted plugin on loopback: checks the request line and headers the
 * client sends, and the answers that break the plugin's contract.
 */
import http from 'node:http';
import { countingRequests, type RunCount } from '../../src/clients/run-requests';
import type { AddressInfo } from 'node:net';
import type { ApiError } from '../../src/clients/errors';
import { ReplicationClient } from '../../src/clients/replication/client';
import { parseConfig, type TargetConfig } from '../../src/config/load';
import { silentLogger } from '../support/collect';

describe('ReplicationClient on the wire', () => {
  let server: http.Server;
  let seen: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
  let answer: { status: number; raw: string };
  let client: ReplicationClient;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.raw);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen = [];
    answer = { status: 200, raw: '[]' };
    const { port } = server.address() as AddressInfo;
    const config = parseConfig({
      targets: [{ name: 'wire', kind: 'replication', url: `http://127.0.0.1:${port}`, username: 'vsphere.local\\admin', password: 'pä:ss', maxAttempts: 1 }],
    });
    client = new ReplicationClient(config.targets[0] as TargetConfig, { logger: silentLogger });
  });
  afterEach(async () => {
    await client.close();
  });

  it('sends Basic credentials and Accept on every request, and builds the fields parameter', async () => {
    await client.vms({ fields: ['id', 'name', 'repClusterName', 'name'] });
    await client.clusters({ fields: ['name'] });
    expect(seen.map((r) => r.url)).toEqual([
      // apiSpelling auto: the field is spelled rpClusterName on the real plugin, so its cluster list path tells first
      '/api/v1/rep-clusters?fields=id',
      '/api/v1/vms?fields=id,name,repClusterName',
      '/api/v1/rep-clusters?fields=name',
    ]);
    const expected = `Basic ${Buffer.from('vsphere.local\\admin:pä:ss', 'utf8').toString('base64')}`;
    for (const request of seen) {
      expect(request.headers.authorization).toBe(expected);
      expect(request.headers.accept).toBe('application/json');
    }
  });

  it('refuses an answer that is not the promised array, and skips a record that lacks a requested field', async () => {
    answer = { status: 200, raw: JSON.stringify({ content: [] }) };
    await expect(client.groups({ fields: ['name'] })).rejects.toMatchObject({ kind: 'protocol', endpoint: '/api/v1/groups' });

    answer = { status: 200, raw: JSON.stringify([{ id: 'v1', name: 'a', status: 'ACTIVE' }, { id: 'v2', name: 'b' }]) };
    const count: RunCount = { requests: 0, answers: 0, skipped: [] };
    await expect(countingRequests(count, () => client.vms({ fields: ['id', 'name', 'status'] }))).resolves.toEqual([{ id: 'v1', name: 'a', status: 'ACTIVE' }]);
    expect(count.skipped).toEqual([{ endpoint: '/api/v1/vms', id: 'v2', problem: '[1].status: expected string, got nothing (field missing)', reason: 'missing_field' }]);
  });

  it('checks a large answer item by item and gives the records back in order', async () => {
    const vms = Array.from({ length: 5_000 }, (_, i) => ({ id: `vm-${i}`, name: `n${i}`, status: i % 7 ? 'ACTIVE' : 'PAUSED', role: 'PRODUCTION', groupName: `g${i % 50}` }));
    answer = { status: 200, raw: JSON.stringify(vms) };
    await expect(client.vms({ fields: ['id', 'name', 'status', 'role', 'groupName'] })).resolves.toEqual(vms);

    answer = { status: 200, raw: JSON.stringify([...vms.slice(0, 4_321), { id: 'vm-x', name: 'x', role: 'PRODUCTION', groupName: 'g' }, ...vms.slice(4_321)]) };
    const count: RunCount = { requests: 0, answers: 0, skipped: [] };
    await expect(countingRequests(count, () => client.vms({ fields: ['id', 'name', 'status', 'role', 'groupName'] }))).resolves.toEqual(vms);
    expect(count.skipped).toEqual([expect.objectContaining({ id: 'vm-x', problem: expect.stringContaining('[4321].status') })]);
  });

  it('accepts numeric ids, null optional fields and unknown fields', async () => {
    answer = { status: 200, raw: JSON.stringify([{ id: 42, name: 'rpa', isRegistered: false, connectionStatus: null, shiny: 'new' }]) };
    await expect(client.clusters({ fields: ['id', 'name', 'isRegistered', 'connectionStatus'] })).resolves.toEqual([
      { id: '42', name: 'rpa', isRegistered: false, connectionStatus: undefined },
    ]);
  });

  it('reports a server error with the reason from its body, bounded', async () => {
    answer = { status: 500, raw: JSON.stringify({ message: `database unavailable ${'x'.repeat(500)}` }) };
    const error = (await client.groups({ fields: ['name'] }).catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ kind: 'status', status: 500 });
    expect(error.unreachable).toBe(true);
    expect(error.message).toContain('database unavailable');
    expect(error.message.length).toBeLessThan(260);
  });
});
