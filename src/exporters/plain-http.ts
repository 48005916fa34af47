/**
 * The plain-text answers (health endpoints, refused logins, errors),
 * written on node's request and response: a flood of requests is answered
 * with as little work on the event loop as possible, without express's
 * send (its content negotiation and ETag).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request's path, without the query string. */
export const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?', 1)[0] as string;

/** A plain-text answer with its length, written at once. */
export function writeText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
