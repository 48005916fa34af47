/**
 * Hostile look-alikes of the management service, for the benchmark's
 * --hostile phase: each counts the requests it receives, so that the bench
 * can report what one collection round costs a misbehaving service and what
 * it costs the exporter's memory.
 *
 * - endless-body: logs in, then answers every request with 200 and a JSON
 *   array that never closes, as fast as the exporter reads;
 * - pages-forever: logs in, then answers serial listings with empty pages
 *   and a fresh queryState each time (never END), random listings with empty
 *   pages that claim a billion pages;
 * - never-answers: accepts each request and never answers it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOSTILE_KINDS = ['endless-body', 'pages-forever', 'never-answers'] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

export interface HostileServer {
  kind: HostileKind;
  url: string;
  /** requests received since start */
  readonly requests: number;
  close(): Promise<void>;
}

const LOGIN_PATH = '/api/v2/login';
const ENDLESS_CHUNK = '{"id":"x","name":"endless"},'.repeat(2000);

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function login(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'POST' || !req.url?.startsWith(LOGIN_PATH)) return false;
  json(res, { access_token: 'hostile-token', token_type: 'Bearer', expires_in: 3600 });
  return true;
}

function endlessBody(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const write = (): void => {
    while (res.write(ENDLESS_CHUNK));
    res.once('drain', write);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  res.write('[');
  write();
}

function pageForever(req: IncomingMessage, res: ServerResponse, token: number): void {
  const query = new URL(req.url ?? '/', 'http://hostile').searchParams;
  if (query.has('queryState')) json(res, { content: [], page: { queryState: `state-${token}` } });
  else json(res, { content: [], page: { number: Number(query.get('page') ?? 1), totalPages: 1_000_000_000, totalElements: 1_000_000_000_000 } });
}

/** Starts one hostile server of `kind` on loopback. */
export async function startHostileServer(kind: HostileKind): Promise<HostileServer> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume();
    if (kind === 'never-answers') return;
    if (login(req, res)) return;
    if (kind === 'endless-body') endlessBody(res);
    else pageForever(req, res, requests);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    kind,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
