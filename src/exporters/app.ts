import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { CONTENT_TYPE, type MetricsRenderer } from './renderer';
import { landingPage } from './landing';
import { joinMembers } from './gzip-join';
import { pathOf, writeText } from './plain-http';
import type { SnapshotStore } from '../snapshot/store';

export interface HttpAppDeps {
  renderer: MetricsRenderer;
  store: () => SnapshotStore;
  targetNames: () => string[];
  /** for a configured target another replica collects, the shard that does */
  collectedElsewhere?: (target: string) => { shard: number; ownShard: number } | undefined;
  isReady: () => boolean;
  logger: Logger;
  /** guards every path but the health endpoints (basic auth), which stay open for probes */
  protect?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
}

/** Bytes a turn: one write of a whole exposition holds the serving thread for ms; a write a member would be hundreds of syscalls. */
export const TURN_BYTES = 256 * 1024;

/** Writes the members corked, not by res.send (no copy, no ETag hash), about TURN_BYTES a turn: small ones grouped, large ones cut. */
async function writeInTurns(res: Response, chunks: readonly Buffer[]): Promise<void> {
  let bytes = 0;
  res.cork();
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += TURN_BYTES) {
      if (bytes >= TURN_BYTES) {
        res.uncork();
        await setImmediate();
        if (res.destroyed) return;
        res.cork();
        bytes = 0;
      }
      const piece = chunk.subarray(at, at + TURN_BYTES);
      res.write(piece);
      bytes += piece.length;
    }
  }
  res.end(); // uncorks
}

/**
 * Sends the gzip members joined into one (views of them, no copy: browsers, curl and wget read only a body's first member); a scraper
 * without gzip gets them decompressed as sent, never held whole; one leaving is no fault.
 */
async function sendExposition(deps: HttpAppDeps, req: Request, res: Response, target?: string): Promise<void> {
  let chunks: Buffer[];
  try {
    chunks = await deps.renderer.renderChunks(target);
  } catch (error) {
    deps.logger.error({ err: error }, 'rendering the exposition failed');
    return writeText(res, 500, 'rendering failed\n');
  }
  res.status(200).set({ 'Content-Type': CONTENT_TYPE, Vary: 'Accept-Encoding' });
  if (req.acceptsEncodings('gzip', 'identity') === 'gzip') {
    const member = joinMembers(chunks);
    const length = member.reduce((sum, chunk) => sum + chunk.length, 0);
    res.set({ 'Content-Encoding': 'gzip', 'Content-Length': String(length) });
    return writeInTurns(res, member);
  }
  pipeline(Readable.from(chunks), createGunzip(), res, (error) => {
    if (error && error.code !== 'ERR_STREAM_PREMATURE_CLOSE') deps.logger.error({ err: error }, 'decompressing the exposition failed');
  });
}

/** The health endpoints and the guard come before express, so that a kubelet's probe stays fast while a flood of bad logins arrives. */
export function createHttpApp(deps: HttpAppDeps): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  // ETags of 401s, 404s and /probe bodies are hashing that no scraper uses.
  app.set('etag', false);

  app.get('/metrics', (req, res) => void sendExposition(deps, req, res));

  app.get('/probe', (req, res) => {
    const target = typeof req.query.target === 'string' ? req.query.target : undefined;
    if (!target || !deps.targetNames().includes(target)) {
      const elsewhere = target ? deps.collectedElsewhere?.(target) : undefined;
      const message = elsewhere
        ? `target "${target}" is collected by shard ${elsewhere.shard}, ` +
          `not by this replica (shard ${elsewhere.ownShard}): probe that replica\n`
        : target
          ? `unknown target "${target}"\n`
          : Array.isArray(req.query.target)
            ? 'one ?target=NAME, not several\n'
            : 'missing ?target=NAME\n';
      return writeText(res, 400, message);
    }
    void sendExposition(deps, req, res, target);
  });

  app.get('/', (_req, res) => void res.type('html').send(landingPage(deps.store().all())));

  const protect = deps.protect;
  return (req, res) => {
    const path = pathOf(req);
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (read && path === '/healthz') return writeText(res, 200, 'ok\n');
    if (read && path === '/readyz') return deps.isReady() ? writeText(res, 200, 'ready\n') : writeText(res, 503, 'not listening yet\n');
    if (!protect) return void app(req, res);
    protect(req, res, () => void app(req, res));
  };
}
