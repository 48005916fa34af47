/**
 * An OTLP/HTTP (JSON) receiver for the tests: keeps the spans and log records
 * it is sent, with their resource attributes, and counts the gzipped bodies;
 * it can answer 503 or not at all, like a collector that is overloaded or dead.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

export interface ReceivedSpan {
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  status?: { code?: number; message?: string };
  attributes: Record<string, unknown>;
}

export interface ReceivedLog {
  resource: Record<string, unknown>;
  timeUnixNano: string | number;
  severityNumber?: number;
  severityText?: string;
  body?: { stringValue?: string };
  attributes: Record<string, unknown>;
}

export type ReceiverMode = 'accept' | 'unavailable' | 'silent';

export interface OtlpReceiver {
  /** base URL, e.g. http://127.0.0.1:4318 */
  url: string;
  spans: ReceivedSpan[];
  logs: ReceivedLog[];
  /** requests received, whatever the answer */
  requests: number;
  /** requests whose body came gzipped */
  gzipped: number;
  /** requests received and not answered yet (mode silent) */
  open(): number;
  mode: ReceiverMode;
  close(): Promise<void>;
}

export function attributeMap(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue;
  }
  return out;
}

/** Nanoseconds as OTLP/JSON gives them (a decimal string, a number, or low and high bits). */
export function nanos(value: unknown): bigint {
  if (typeof value === 'object' && value !== null && 'low' in value) {
    const { low, high } = value as { low: number; high: number };
    return (BigInt(high >>> 0) << 32n) + BigInt(low >>> 0);
  }
  return BigInt(String(value));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const pending = new Set<ServerResponse>();
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    logs: [],
    requests: 0,
    gzipped: 0,
    open: () => pending.size,
    mode: 'accept',
    close: async () => {
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // A collector takes gzip bodies too (OTEL_EXPORTER_OTLP_COMPRESSION=gzip).
      const gzipped = req.headers['content-encoding'] === 'gzip';
      const raw = Buffer.concat(chunks);
      const body = (gzipped ? gunzipSync(raw) : raw).toString('utf8');
      receiver.requests += 1;
      if (gzipped) receiver.gzipped += 1;
      if (receiver.mode === 'silent') {
        pending.add(res);
        res.on('close', () => pending.delete(res));
        return;
      }
      if (receiver.mode === 'unavailable') {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, 'resource' | 'attributes'> & { attributes?: OtlpAttribute[] }> }> }>;
        };
        for (const resourceSpans of payload.resourceSpans) {
          const resource = attributeMap(resourceSpans.resource.attributes);
          for (const scope of resourceSpans.scopeSpans) {
            for (const span of scope.spans) receiver.spans.push({ ...span, resource, attributes: attributeMap(span.attributes) });
          }
        }
      } else if (req.url === '/v1/logs') {
        const payload = JSON.parse(body) as {
          resourceLogs: Array<{ resource: { attributes: OtlpAttribute[] }; scopeLogs: Array<{ logRecords: Array<Omit<ReceivedLog, 'resource' | 'attributes'> & { attributes?: OtlpAttribute[] }> }> }>;
        };
        for (const resourceLogs of payload.resourceLogs) {
          const resource = attributeMap(resourceLogs.resource.attributes);
          for (const scope of resourceLogs.scopeLogs) {
            for (const record of scope.logRecords) receiver.logs.push({ ...record, resource, attributes: attributeMap(record.attributes) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
