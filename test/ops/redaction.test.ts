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

type Kind = 'management' | 'replication' | 'storage';

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

/** Runs the first round of one target with one fault; what the logs, `/` and the spans then hold. */
async function firstRoundWith(kind: Kind, fault: FaultRule): Promise<{ logs: string; page: string; spans: string }> {
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

/** An answer that echoes the request, and what `/` then says (HTML-escaped). */
interface EchoCase {
  name: string;
  kind: Kind;
  path: string;
  status: number;
  echo: (request: EchoedRequest) => string;
  page: string;
  /** the request carries a token (known to the test only from the echo) */
  token?: true;
  /** the upstream's encoder escapes & < > / (as Go's and Java's do): the echo matches no spelling of the password as sent */
  escaped?: true;
}

const passwordOf = (request: EchoedRequest): string => (JSON.parse(request.body) as { password: string }).password;

const CASES: EchoCase[] = [
  {
    name: 'a management login answered 400 with the request body echoed',
    kind: 'management',
    path: '/api/v2/login',
    status: 400,
    echo: (request) => `Malformed login request: ${request.body}`,
    page: 'login: HTTP 400 (Malformed login request: {&quot;username&quot;:&quot;admin&quot;,&quot;password&quot;:&quot;[REDACTED]&quot;})',
  },
  {
    name: 'a management login answered 401 with a reason naming the password',
    kind: 'management',
    path: '/api/v2/login',
    status: 401,
    echo: (request) => `Password ${passwordOf(request)} is not valid`,
    page: '(HTTP 401: Password [REDACTED] is not valid)',
  },
  {
    name: 'a management login answered 401 naming the password, & and / escaped by the encoder',
    kind: 'management',
    path: '/api/v2/login',
    status: 401,
    echo: (request) => `Password ${passwordOf(request)} is not valid`,
    page: '(HTTP 401: Password [REDACTED] is not valid)',
    escaped: true,
  },
  {
    name: 'a management login answered 400 echoing the body, & and / escaped by the encoder',
    kind: 'management',
    path: '/api/v2/login',
    status: 400,
    echo: (request) => `Malformed login request: ${request.body}`,
    page: 'login: HTTP 400 (Malformed login request: {&quot;username&quot;:&quot;admin&quot;,&quot;password&quot;:&quot;[REDACTED]&quot;})',
    escaped: true,
  },
  ...[403, 500].map((status) => ({
    name: `a management listing answered ${status} with a reason quoting the Bearer token`,
    kind: 'management' as const,
    path: '/api/v2/assets',
    status,
    echo: (request: EchoedRequest) => `Request with Authorization: ${String(request.headers.authorization)} refused`,
    page: `HTTP ${status} (Request with Authorization: Bearer [REDACTED] refused)`,
    token: true as const,
  })),
  {
    name: 'a replication 403 echoing the Authorization: Basic header',
    kind: 'replication',
    path: '/api/v1/rep-clusters',
    status: 403,
    echo: (request) => `Forbidden: Authorization: ${String(request.headers.authorization)}`,
    page: 'HTTP 403 (Forbidden: Authorization: Basic [REDACTED])',
  },
  {
    name: 'beyond the five: a storage login 401 echoing the body',
    kind: 'storage',
    path: '/rest/v1.0/auth',
    status: 401,
    echo: (request) => `Invalid credentials in ${request.body}`,
    page: 'login rejected for user admin (HTTP 401: Invalid credentials in {&quot;username&quot;:&quot;admin&quot;,&quot;password&quot;:&quot;[REDACTED]&quot;})',
  },
  {
    name: 'beyond the five: a storage 403 quoting the X-DD-AUTH-TOKEN header',
    kind: 'storage',
    path: '/rest/v1.0/system',
    status: 403,
    echo: (request) => `Token ${String(request.headers['x-dd-auth-token'])} may not read this`,
    page: 'HTTP 403 (Token [REDACTED] may not read this)',
    token: true,
  },
];

it.each(CASES)('$name', async ({ kind, path, status, echo, page, token: carriesToken, escaped }) => {
  const tokens: string[] = [];
  const outputs = await firstRoundWith(kind, {
    api: kind,
    path,
    fault: {
      kind: 'status',
      status,
      reason: (request) => {
        const token = request.headers['x-dd-auth-token'] ?? String(request.headers.authorization ?? '').replace(/^Bearer /, '');
        if (token) tokens.push(String(token));
        return echo(request);
      },
      ...(escaped ? { escaped } : {}),
    },
  });
  // The error reached every output, redacted: none passes for want of the error.
  expect(outputs.page).toContain(page);
  expect(outputs.logs).toContain('[REDACTED]');
  expect(outputs.spans).toContain('[REDACTED]');
  if (carriesToken) expect(tokens.length).toBeGreaterThan(0);
  expectNoCredential(outputs, tokens);
});
