/**
 * An upstream's error text is untrusted input: answers that echo the
 * credentials the exporter sent (the login body, a Bearer token, a Basic
 * header) leave none of them in the log lines (trace level), on the landing
 * page or in the exported spans. Run end to end: the exporter against the
 * simulator, whose `status` faults build their reason from the request.
 */
import { Writable } from 'node:stream';
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { assetsCollector } from '../../src/collectors/management/assets';
import { clustersCollector } from '../../src/collectors/replication/clusters';
import { alertsCollector } from '../../src/collectors/storage/alerts';
import { createLogger } from '../../src/util/logger';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { EchoedRequest, FaultRule } from '../../simulator/types';
import { recordSpans } from '../support/spans';

/** Quotes, a backslash, a space and URL-special characters: every escaping an echo may apply differs from the plain text. */
const PASSWORD = 'Pa"ss\\Core42 w/rd+&=';
/** The part of the password that survives any escaping: found nowhere, the password is found nowhere. */
const PASSWORD_CORE = 'Core42';

const spans = recordSpans();
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, size: { assets: 10, copiesPerAsset: 1 }, password: PASSWORD });
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.faults.clear();
});

/** The credential an Authorization header carries, without its scheme. */
const credentialOf = (request: EchoedRequest): string => String(request.headers.authorization ?? '').replace(/^\S+ /, '');

/** Runs the first round of one target with one fault; what the logs, `/` and the spans then hold. */
async function firstRoundWith(kind: 'management' | 'replication' | 'storage', fault: FaultRule): Promise<{ logs: string; page: string; spans: string }> {
  sim.faults.add(fault);
  let logs = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString('utf8');
      done();
    },
  });
  const url = { management: sim.urls.management, replication: sim.urls.replication, storage: sim.urls.storageCenter }[kind];
  const collector = { management: assetsCollector, replication: clustersCollector, storage: alertsCollector }[kind];
  const config = parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    targets: [{ name: 'echoing', kind, url, username: sim.username, password: PASSWORD, maxAttempts: 1 }],
  });
  const exporter = new Exporter(config, createLogger('trace', sink), { collectorsFor: () => [collector] });
  await exporter.start();
  try {
    while (!exporter.runtime.firstRoundComplete()) await new Promise((resolve) => setTimeout(resolve, 10));
    const page = await (await fetch(`${exporter.address()}/`)).text();
    const exported = spans.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, status: span.status, events: span.events }));
    return { logs, page, spans: JSON.stringify(exported) };
  } finally {
    await exporter.stop();
  }
}

/** Every spelling of the credentials a reader of the outputs could recognise. */
function expectNoCredential(outputs: { logs: string; page: string; spans: string }, tokens: readonly string[]): void {
  const basic = Buffer.from(`${sim.username}:${PASSWORD}`).toString('base64');
  for (const [where, text] of Object.entries(outputs)) {
    for (const secret of [PASSWORD_CORE, basic, ...tokens]) expect([where, text.includes(secret)]).toEqual([where, false]);
  }
}

it('a login answered 400 with the request body echoed', async () => {
  const outputs = await firstRoundWith('management', {
    api: 'management',
    path: '/api/v2/login',
    fault: { kind: 'status', status: 400, reason: (request) => `Malformed login request: ${request.body}` },
  });
  expect(outputs.page).toContain('login: HTTP 400 (Malformed login request:');
  expect(outputs.page).toContain('[REDACTED]');
  expectNoCredential(outputs, []);
});

it('a login answered 401 with a reason naming the password', async () => {
  const outputs = await firstRoundWith('management', {
    api: 'management',
    path: '/api/v2/login',
    fault: { kind: 'status', status: 401, reason: (request) => `Password ${String((JSON.parse(request.body) as { password: string }).password)} is not valid` },
  });
  expect(outputs.page).toContain('login rejected for user');
  expect(outputs.page).toContain('Password [REDACTED] is not valid');
  expectNoCredential(outputs, []);
});

it.each([403, 500])('a listing answered %i with a reason quoting the Bearer token', async (status) => {
  const tokens: string[] = [];
  const outputs = await firstRoundWith('management', {
    api: 'management',
    path: '/api/v2/assets',
    fault: {
      kind: 'status',
      status,
      reason: (request) => {
        tokens.push(credentialOf(request));
        return `Request with Authorization: Bearer ${credentialOf(request)} refused`;
      },
    },
  });
  expect(tokens.length).toBeGreaterThan(0);
  expect(outputs.page).toContain(`HTTP ${status} (Request with Authorization: Bearer [REDACTED] refused)`);
  expectNoCredential(outputs, tokens);
});

it('a replication 403 echoing the Authorization: Basic header', async () => {
  const outputs = await firstRoundWith('replication', {
    api: 'replication',
    path: '/api/v1/rep-clusters',
    fault: { kind: 'status', status: 403, reason: (request) => `Forbidden: Authorization: ${String(request.headers.authorization)}` },
  });
  expect(outputs.page).toContain('HTTP 403 (Forbidden: Authorization: Basic [REDACTED])');
  expectNoCredential(outputs, []);
});

it('beyond the five: a storage login 401 echoing the body', async () => {
  const login = await firstRoundWith('storage', {
    api: 'storage',
    path: '/rest/v1.0/auth',
    method: 'POST',
    fault: { kind: 'status', status: 401, reason: (request) => `Invalid credentials in ${request.body}` },
  });
  expect(login.page).toContain('login rejected: HTTP 401 (Invalid credentials in');
  expectNoCredential(login, []);
});

it('beyond the five: a storage 403 quoting the X-DD-AUTH-TOKEN header', async () => {
  const tokens: string[] = [];
  const listing = await firstRoundWith('storage', {
    api: 'storage',
    path: '/rest/v1.0/system',
    fault: {
      kind: 'status',
      status: 403,
      reason: (request) => {
        tokens.push(String(request.headers['x-dd-auth-token']));
        return `Token ${String(request.headers['x-dd-auth-token'])} may not read this`;
      },
    },
  });
  expect(tokens.length).toBeGreaterThan(0);
  expect(listing.page).toContain('HTTP 403 (Token [REDACTED] may not read this)');
  expectNoCredential(listing, tokens);
});
