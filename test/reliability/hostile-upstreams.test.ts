/**
 * Management look-alikes that misbehave in the ways an adversarial operator
 * tried, through one round of the whole runtime logging at level `trace`:
 * a redirect to another host (not followed: no credentials leave), HTML with
 * 200, a stall after the headers. Each target fails with an error naming the
 * endpoint, and neither the password nor the bearer token reaches the logs.
 * Last, the daemon stops on SIGTERM with exit code 0 while its requests hang.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { ExporterRuntime } from '../../src/runtime';
import { eventually, spawnCli, writeConfig } from '../support/cli-process';

const PASSWORD = 'Pw-never-logged-7731';
const TOKEN = 'bearer-never-logged-4419';

type Behaviour = 'redirect' | 'html' | 'stall';

/** Answers the login everywhere; the rest as the first path segment says. Counts requests by segment. */
function hostileServer(elsewhere: () => string): { server: Server; requests: Map<string, number> } {
  const requests = new Map<string, number>();
  const server = createServer((req, res) => {
    const [, behaviour = '', ...rest] = (req.url ?? '/').split('/');
    const path = `/${rest.join('/')}`;
    requests.set(behaviour, (requests.get(behaviour) ?? 0) + 1);
    req.resume();
    req.on('end', () => answer(behaviour as Behaviour, path, res, elsewhere));
  });
  return { server, requests };
}

function answer(behaviour: Behaviour, path: string, res: ServerResponse, elsewhere: () => string): void {
  if (behaviour === 'redirect') {
    res.writeHead(302, { location: `${elsewhere()}${path}` });
    res.end();
    return;
  }
  if (path.startsWith('/api/v2/login')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }));
    return;
  }
  if (behaviour === 'html') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><h1>Welcome to the proxy</h1></body></html>');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.flushHeaders(); // and never a byte of body
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('hostile management look-alikes', () => {
  let hostile: ReturnType<typeof hostileServer>;
  let other: Server;
  let otherRequests = 0;
  let base: string;
  let otherUrl: string;

  beforeAll(async () => {
    other = createServer((req, res) => {
      otherRequests += 1;
      res.end('{}');
    });
    otherUrl = await listen(other);
    hostile = hostileServer(() => otherUrl);
    base = await listen(hostile.server);
  });
  afterAll(async () => {
    await close(hostile.server);
    await close(other);
  });

  it('fail each target with an error naming the endpoint, follow no redirect, and log no secret at level trace', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
    const target = (behaviour: Behaviour) => ({ name: behaviour, kind: 'management', url: `${base}/${behaviour}`, username: 'monitor', password: PASSWORD, requestTimeout: '1s', maxAttempts: 1 });
    const config = parseConfig({ logLevel: 'trace', targets: [target('redirect'), target('html'), target('stall')] });
    const runtime = new ExporterRuntime(config, { logger });
    try {
      await runtime.runOnce();
      const records = runtime.store.all();
      const errorsOf = (name: string) => new Set(records.filter((r) => r.target === name).map((r) => r.lastError));
      expect(records.every((r) => !r.lastRunSucceeded)).toBe(true);
      expect(errorsOf('redirect')).toEqual(new Set(['/api/v2/login: login: HTTP 302']));
      expect([...errorsOf('html')].length).toBeGreaterThan(0);
      for (const error of errorsOf('html')) expect(error).toMatch(/^\/api\/v2\/[^:]+: malformed JSON in a 55-byte body/);
      for (const error of errorsOf('stall')) expect(error).toMatch(/^\/api\/v2\/[^:]+: no answer within 1000 ms$/);
      expect(records.filter((r) => r.target === 'stall').every((r) => r.unreachableSince !== undefined)).toBe(true);
      expect(otherRequests).toBe(0);
    } finally {
      await runtime.stop();
    }
    const logs = lines.join('');
    expect(logs).toContain('collection failed');
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain(TOKEN);
  });

  it('the daemon exits 0 on SIGTERM while its requests hang', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostile-'));
    try {
      const file = join(dir, 'config.yaml');
      // Requests that would hang for an hour: the exit cannot be waiting for them.
      writeConfig(file, [{ name: 'stall', kind: 'management', url: `${base}/stall`, username: 'monitor', password: PASSWORD, requestTimeout: '1h', maxAttempts: 1 }]);
      const before = hostile.requests.get('stall') ?? 0;
      const cli = spawnCli(['--config', file]);
      await eventually(() => (hostile.requests.get('stall') ?? 0) >= before + 2, 30_000, 'a hanging data request');
      cli.child.kill('SIGTERM');
      const code = await cli.exited;
      expect(code).toBe(0);
      expect(cli.stdout() + cli.stderr()).not.toContain(PASSWORD);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
