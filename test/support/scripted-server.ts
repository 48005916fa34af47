/** A JSON server on 127.0.0.1 that answers each request as the test's script says: shapes the simulator does not produce. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

export async function scripted(handle: (method: string, path: string, url: string) => Answer): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '';
      const answer = handle(req.method ?? '', url.split('?')[0] as string, url);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
