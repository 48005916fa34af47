/**
 * The machine's floor, beside the exporter: a process that does nothing but
 * serve a body of ready bytes on loopback and watch its own event loop. On a
 * shared 2-core machine the serving thread's figures include waiting for a
 * core and the scraper's own cost; this process pays the same with no work of
 * its own, so the exporter's figures read against it, measured under the same
 * rounds, say what the exporter adds.
 *
 * started by startChild('bench/support/floor-child.ts', {bytes}); commands:
 * loopDelayStart, loopDelayStop.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loopLatenessCommands } from './loop-lateness';
import { childArgument, serve } from './ipc';

export interface FloorChildOptions {
  /** the body's size: the exposition's gzip size, so that the same bytes cross loopback */
  bytes: number;
}

export interface FloorHello {
  url: string;
}

async function main(): Promise<void> {
  const { bytes } = childArgument<FloorChildOptions>();
  // Sent as they are: nothing is computed per request.
  const body = randomBytes(bytes);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'content-encoding': 'gzip', 'content-length': body.length });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serve(loopLatenessCommands(), { url: `http://127.0.0.1:${port}/metrics` } satisfies FloorHello);
}

void main();
