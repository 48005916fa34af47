import { once } from 'node:events';
import type { Socket } from 'node:net';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { ExporterConfig } from '../config/load';
import { readTlsPair } from '../config/tls-pair';

/** Each server's TCP connections from their accept: closeAllConnections knows a TLS one only after a handshake that may never come. */
const connections = new WeakMap<Server, Set<Socket>>();

/** A socket on which nothing moved this long is closed: a client that stopped reading its answer would hold it and its bytes. */
export const IDLE_SOCKET_MS = 120_000;

export async function listen(app: RequestListener, web: ExporterConfig['web'], idleSocketMs = IDLE_SOCKET_MS): Promise<Server> {
  const server: Server = web.tls ? createHttpsServer(readTlsPair(web.tls), app) : createHttpServer(app);
  const sockets = new Set<Socket>();
  connections.set(server, sockets);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Slow or idle clients must not pin sockets forever: requestTimeout bounds receiving a request, keepAliveTimeout the wait
  // between two, and the idle timeout a response its client stopped reading (past the keep-alive wait: that one comes first).
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  server.timeout = idleSocketMs;
  server.listen(web.port, web.listenAddress);
  await once(server, 'listening'); // rejects on an 'error' first (e.g. EADDRINUSE)
  return server;
}

/** How long responses already being written (a scrape) may take to finish at a stop. */
const RESPONSE_GRACE_MS = 1_000;

/** Stops accepting, closes idle connections at once, the others (a slow request or response, a TLS handshake) after RESPONSE_GRACE_MS. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    const sockets = connections.get(server) ?? new Set<Socket>();
    if (sockets.size === 0) return;
    setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, RESPONSE_GRACE_MS).unref();
  });
}
