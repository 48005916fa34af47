import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import type { Express, NextFunction, Request, Response } from 'express';
import type { ApiName, FaultRule } from '../types';
import type { Faults } from './faults';
import type { Stats } from './stats';

export interface ApiServer {
  /** e.g. http://127.0.0.1:PORT, no trailing slash */
  url: string;
  /** stops listening and ends every connection at once, hanging requests and idle keep-alive sockets included */
  close(): Promise<void>;
}

export interface StartApiServerOptions {
  api: ApiName;
  app: Express;
  /** 0 or undefined: a free port */
  port?: number;
  tls?: { key: string; cert: string };
  faults: Faults;
  stats: Stats;
  /** the API's error body for an injected `status` fault, with the fault's reason if it has one (default `{code, message}`) */
  errorBody?: (status: number, req: Request, reason?: string) => unknown;
}

/** A body that starts like a JSON page and stops mid-string: what a proxy cutting a response short produces. */
const MALFORMED_BODY = '{"content":[{"id":"3f1c2a","name":"truncat';

/**
 * Starts an express app on 127.0.0.1. In front of the app's own routes it
 * counts every request (stats), applies the replication plugin's concurrency
 * limit (`faults.replicationMaxConcurrent`, api 'replication' only) and the
 * fault rules for `api`.
 */
export async function startApiServer(opts: StartApiServerOptions): Promise<ApiServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const front = express();
  front.disable('x-powered-by');
  front.use(statsMiddleware(opts.api, opts.stats));
  front.use(overloadMiddleware(opts));
  front.use(faultMiddleware(opts, timers));
  front.use(refusalMiddleware(opts.api, opts.stats));
  front.use(opts.app);

  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, front) : http.createServer(front);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    });
    return closing;
  };
  return { url, close };
}

function pathnameOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Counts the request on arrival (so hanging and reset requests count too) and its response body bytes once sent. */
function statsMiddleware(api: ApiName, stats: Stats) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const method = req.method;
    const pathname = pathnameOf(req.url);
    stats.record(api, method, pathname, 0);
    let bytes = 0;
    const count = (chunk: unknown, encoding?: unknown): void => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
    };
    const originalWrite = res.write.bind(res) as (...args: unknown[]) => boolean;
    const originalEnd = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((...args: unknown[]) => {
      count(args[0], args[1]);
      return originalWrite(...args);
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      count(args[0], args[1]);
      return originalEnd(...args);
    }) as Response['end'];
    res.once('finish', () => {
      if (bytes > 0) stats.addBytes(api, method, pathname, bytes);
    });
    next();
  };
}

/**
 * Counts the app's 400 answers as refusals (stats.recordRefusal) by route
 * and reason: an injected fault answers before this and is not a refusal.
 */
function refusalMiddleware(api: ApiName, stats: Stats) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const json = res.json.bind(res);
    res.json = ((body: unknown) => {
      if (res.statusCode === 400) stats.recordRefusal(api, `${req.baseUrl}${routeOf(req) ?? pathnameOf(req.url)}`, reasonOf(body));
      return json(body);
    }) as Response['json'];
    next();
  };
}

function routeOf(req: Request): string | undefined {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : undefined;
}

/** the reason an API's error body gives (management: reason, plugin: message, storage: details) */
function reasonOf(body: unknown): string {
  const fields = (body ?? {}) as Record<string, unknown>;
  const reason = fields.reason ?? fields.message ?? fields.details;
  return typeof reason === 'string' ? reason : 'Bad request';
}

/**
 * A listing answer (a bare array, or an object whose first array is the
 * listing: `content`, `alert_list`, ...) with one item's field changed. The
 * answer is copied where it changes: the estate's own records stay as they are.
 */
function withItemField(body: unknown, change: { id?: string; index?: number; field: string; value: unknown }): unknown {
  const chosen = (item: unknown, index: number): boolean =>
    change.id === undefined ? index === change.index : (item as { id?: unknown } | null)?.id === change.id;
  const changed = (items: unknown[]): unknown[] =>
    items.map((item, index) => (item && typeof item === 'object' && chosen(item, index) ? { ...item, [change.field]: change.value } : item));
  if (Array.isArray(body)) return changed(body);
  if (!body || typeof body !== 'object') return body;
  const key = Object.keys(body).find((name) => Array.isArray((body as Record<string, unknown>)[name]));
  return key === undefined ? body : { ...body, [key]: changed((body as Record<string, unknown[]>)[key] as unknown[]) };
}

function errorBodyFor(opts: StartApiServerOptions, status: number, req: Request, reason?: string): unknown {
  return opts.errorBody ? opts.errorBody(status, req, reason) : { code: status, message: reason ?? http.STATUS_CODES[status] ?? 'Error' };
}

/**
 * The replication plugin rejects work under load with 429. A request is in
 * flight from its arrival until its response closes, so requests held by a
 * latency fault count too (that is how tests build up load).
 */
function overloadMiddleware(opts: StartApiServerOptions) {
  let inFlight = 0;
  return (req: Request, res: Response, next: NextFunction): void => {
    const limit = opts.api === 'replication' ? opts.faults.replicationMaxConcurrent : undefined;
    if (limit !== undefined && inFlight >= limit) {
      res.setHeader('Retry-After', '1');
      res.status(429).json(errorBodyFor(opts, 429, req));
      return;
    }
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
    });
    next();
  };
}

/** JSON with & < > and non-ASCII as \u escapes and / as \/: each stands only inside strings, so escaping every one is valid. */
function escapedJson(value: unknown): string {
  const unicode = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value).replace(/[&<>\u007f-\uffff]/g, unicode).replace(/\//g, '\\/');
}

function faultMiddleware(opts: StartApiServerOptions, timers: Set<NodeJS.Timeout>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const fault: FaultRule['fault'] | undefined = opts.faults.match(opts.api, req.method, pathnameOf(req.url));
    if (!fault) return next();
    switch (fault.kind) {
      case 'status': {
        if (fault.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(fault.retryAfterSeconds));
        const { reason } = fault;
        if (!reason) {
          res.status(fault.status).json(errorBodyFor(opts, fault.status, req));
          return;
        }
        // The reason quotes the body: read it whole first (no route has parsed it yet).
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.once('end', () => {
          const text = reason({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
          const body = errorBodyFor(opts, fault.status, req, text);
          if (!fault.escaped) res.status(fault.status).json(body);
          else res.status(fault.status).type('application/json').send(escapedJson(body));
        });
        return;
      }
      case 'malformed':
        res.status(200).type('application/json').send(MALFORMED_BODY);
        return;
      case 'item': {
        const json = res.json.bind(res);
        res.json = (body: unknown) => json(withItemField(body, fault));
        return next();
      }
      case 'hang':
        // Never answer: the client's timeout or the server's close() ends the socket.
        return;
      case 'latency': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          next();
        }, fault.ms);
        timers.add(timer);
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
    }
  };
}
