import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { Express } from 'express';
import type { ExporterConfig } from '../config/load';

/** Listens on the configured address and port, over TLS when web.tls is set. */
export async function listen(app: Express, web: ExporterConfig['web']): Promise<Server> {
  const server: Server = web.tls
    ? createHttpsServer({ cert: readFileSync(web.tls.certFile), key: readFileSync(web.tls.keyFile) }, app)
    : createHttpServer(app);
  // Slow or idle clients must not pin sockets forever.
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(web.port, web.listenAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
