/**
 * A client that sends a scrape and never reads the answer: once nothing has moved on its socket for the idle timeout, the server
 * closes it, rather than holding the socket and the answer's bytes for as long as the client stays connected.
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { closeServer, listen } from '../../src/exporters/listener';
import { parseConfig } from '../../src/config/load';

const web = parseConfig({ web: { listenAddress: '127.0.0.1', port: 0 }, targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }] }).web;

it('closes the socket of a client that stopped reading its answer', async () => {
  const answer = Buffer.alloc(64 * 1024 * 1024, 'x'); // far more than the socket buffers take
  let serverSide: Socket | undefined;
  const server = await listen((req, res) => {
    serverSide = req.socket;
    res.end(answer);
  }, web, 300);
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  try {
    client.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    client.pause(); // never reads
    while (!serverSide) await new Promise((resolve) => setTimeout(resolve, 10));
    await once(serverSide, 'close');
    expect(serverSide.destroyed).toBe(true);
  } finally {
    client.destroy();
    await closeServer(server);
  }
});
