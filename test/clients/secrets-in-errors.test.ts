/**
 * A 401's reason may name the credential the server refused: the management
 * seed says its 401 "reason names the invalid token". ApiError messages go to
 * the logs, the landing page and trace spans, so they must not carry it.
 * Tested against a service on loopback that answers as the seed describes.
 * Nor may they quote a piece of a malformed body, which could be anything.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManagementClient } from '../../src/clients/management/client';
import { collectAll } from '../../src/clients/management/paging';
import { parseJson } from '../../src/clients/response';
import { ReplicationClient } from '../../src/clients/replication/client';
import { parseConfig, type TargetConfig } from '../../src/config/load';
import { silentLogger } from '../support/collect';

const PASSWORD = 'Pa55-word-never-shown';
let server: http.Server;
let baseUrl: string;
let issued = 0;
const tokens: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    req.resume();
    req.on('end', () => {
      const reply = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/api/v2/login') {
        const token = `eyJ-secret-token-${++issued}`;
        tokens.push(token);
        return reply(200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
      }
      if (url.pathname === '/api/v2/logout') return reply(204, {});
      // Every later call is refused, naming the credential it carried.
      const credential = (req.headers.authorization ?? '').replace(/^(Bearer|Basic) /, '');
      return reply(401, { code: 401, reason: `The access token ${credential} is invalid or has expired`, remediation: 'Log in again', timestamp: Date.now(), path: url.pathname, extendedInfo: null });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function target(kind: 'management' | 'replication'): TargetConfig {
  return parseConfig({ targets: [{ name: 'stub', kind, url: baseUrl, username: 'monitor', password: PASSWORD }] }).targets[0] as TargetConfig;
}

function expectNoSecret(error: unknown, secrets: string[]): void {
  const message = (error as Error).message;
  for (const secret of secrets) expect(message).not.toContain(secret);
}

it('management: a 401 for a freshly issued token does not quote the token the service names', async () => {
  const client = new ManagementClient(target('management'), { logger: silentLogger, http: { backoffBaseMs: 5 } });
  try {
    const error = await collectAll(client.assets()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'auth', status: 401, message: expect.stringContaining('401') });
    expect(tokens.length).toBe(2); // the first token refused, a fresh login, refused again
    expectNoSecret(error, [...tokens, PASSWORD]);
  } finally {
    await client.close();
  }
});

it('replication: a 401 does not quote the Basic credentials the plugin echoes', async () => {
  const client = new ReplicationClient(target('replication'), { logger: silentLogger, http: { backoffBaseMs: 5 } });
  try {
    const error = await client.clusters({ fields: ['id'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expectNoSecret(error, [Buffer.from(`monitor:${PASSWORD}`).toString('base64'), PASSWORD]);
  } finally {
    await client.close();
  }
});

describe('a malformed JSON body is quoted without the piece of it the parser cites', () => {
  const problemIn = (text: string): string => {
    try {
      parseJson({ status: 200, headers: {}, text }, '/api/v2/assets');
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('parsed');
  };

  it.each([
    ['short', '<html>x</html>', "Unexpected token '<' (not valid JSON)"],
    ['long, cited from its start', '<html><head><title>Sign in</title></head><body>session abc123 for monitor</body></html>', "Unexpected token '<' (not valid JSON)"],
    ['long, cited around a fault in the middle', `{"content":[${'1,'.repeat(40)} hunter2-secret, 2]}`, "Unexpected token 'h' (not valid JSON)"],
  ])('%s', (_name, text, problem) => {
    expect(problemIn(text)).toBe(`/api/v2/assets: malformed JSON in a ${text.length}-byte body: ${problem}`);
  });
});
