import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import type { Logger } from 'pino';
import { CONTENT_TYPE } from './exposition';
import { landingPage } from './landing';
import type { MetricsRenderer } from './renderer';
import type { SnapshotStore } from '../snapshot/store';

export interface HttpAppDeps {
  renderer: MetricsRenderer;
  store: () => SnapshotStore;
  targetNames: () => string[];
  /** for a configured target another replica collects, the shard that does */
  collectedElsewhere?: (target: string) => { shard: number; ownShard: number } | undefined;
  isReady: () => boolean;
  logger: Logger;
  /** guards /metrics, /probe and / (basic auth); health endpoints stay open for probes */
  protect?: (req: Request, res: Response, next: NextFunction) => void;
}

/** The exporter's HTTP endpoints: /metrics, /probe?target=NAME, /healthz, /readyz and a landing page. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  const protect = deps.protect ?? ((_req: Request, _res: Response, next: NextFunction) => next());

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok\n');
  });

  app.get('/readyz', (_req, res) => {
    if (deps.isReady()) res.type('text/plain').send('ready\n');
    else res.status(503).type('text/plain').send('not listening yet\n');
  });

  app.get('/metrics', protect, async (req, res) => {
    try {
      // Written as the renderer's buffers, without res.send: no copy of the
      // body and no ETag hash of it on every scrape; gzip when the scraper
      // accepts it (Prometheus does), compressed once per result.
      const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
      const chunks = await deps.renderer.renderChunks(gzip ? 'gzip' : 'identity');
      let length = 0;
      for (const chunk of chunks) length += chunk.length;
      res.status(200).set({ 'Content-Type': CONTENT_TYPE, 'Content-Length': String(length), Vary: 'Accept-Encoding' });
      if (gzip) res.set('Content-Encoding', 'gzip');
      res.cork();
      for (const chunk of chunks) res.write(chunk);
      res.uncork();
      res.end();
    } catch (error) {
      deps.logger.error({ err: error }, 'rendering /metrics failed');
      res.status(500).type('text/plain').send('rendering failed\n');
    }
  });

  app.get('/probe', protect, async (req, res) => {
    const target = typeof req.query.target === 'string' ? req.query.target : undefined;
    const elsewhere = target && !deps.targetNames().includes(target) ? deps.collectedElsewhere?.(target) : undefined;
    if (target && elsewhere) {
      res
        .status(400)
        .type('text/plain')
        .send(`target "${target}" is collected by shard ${elsewhere.shard}, not by this replica (shard ${elsewhere.ownShard}): probe that replica\n`);
      return;
    }
    if (!target || !deps.targetNames().includes(target)) {
      res.status(400).type('text/plain').send(target ? `unknown target "${target}"\n` : 'missing ?target=NAME\n');
      return;
    }
    res.set('Content-Type', CONTENT_TYPE).send(await deps.renderer.render(target));
  });

  app.get('/', protect, (_req, res) => {
    res.type('html').send(landingPage(deps.store().all()));
  });

  return app;
}
