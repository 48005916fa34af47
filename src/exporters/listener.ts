import { once } from 'node:events';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { ExporterConfig } from '../config/load';
import { readTlsPair } from '../config/tls-pair';

type WebSettings = ExporterConfig['web'];

/** Listens on the configured address and port, over TLS when web.tls is set. */
export async function listen(app: RequestListener, web: WebSettings): Promise<Server> {
  const server: Server = web.tls ? createHttpsServer(readTlsPair(web.tls), app) : createHttpServer(app);
  // Slow or idle clients must not pin sockets forever.
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  server.listen(web.port, web.listenAddress);
  await once(server, 'listening'); // rejects on an 'error' first (e.g. EADDRINUSE)
  return server;
}

/**
 * Loads the certificate and key again (a renewed certificate on reload); new
 * connections use them, open ones keep theirs. Throws, changing nothing, when
 * the files cannot be read or do not form a valid pair.
 */
export function reloadTls(server: Server, tls: NonNullable<WebSettings['tls']>): void {
  if (!('setSecureContext' in server)) throw new Error('web.tls: the server was started without TLS; restart to serve HTTPS');
  (server as HttpsServer).setSecureContext(readTlsPair(tls));
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
