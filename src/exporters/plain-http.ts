/** Plain-text answers (health, refused logins, errors) on node's request and response: a flood costs no content negotiation or ETag. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?', 1)[0] as string;

/** A plain-text answer with its length, written at once. */
export function writeText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
