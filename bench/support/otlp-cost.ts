/**
 * What forwarding the estate's events over OTLP costs (otlp.activities and
 * otlp.auditLogs, src/otlp): exporters with both signals off and on, each in
 * its own process against the same simulator, send to a local OTLP/HTTP sink.
 * Measured, wall and CPU time of the exporter's process:
 *   - a cold round, off and on (the default backfill 0: nothing that
 *     completed before start is forwarded);
 *   - a round an hour later (both clocks moved), off and on: that hour's
 *     completed activities and audit entries forwarded;
 *   - a cold round with otlp.backfill 24h: the whole window forwarded.
 * After each forwarding round the exporter sends what is still queued
 * (flushEvents), timed on its own: batches go out during the round, so the
 * round's CPU time holds most of the sending.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Child } from './ipc';
import type { ExporterHello, FlushReport, RoundReport } from './exporter-child';

export interface RoundCost {
  seconds: number;
  cpuSeconds: number;
}

export interface OtlpCostFigures {
  cold: { off: RoundCost; on: RoundCost };
  hourLater: { off: RoundCost; on: RoundCost; send: RoundCost; spans: number; logs: number };
  backfill: { round: RoundCost; send: RoundCost; spans: number; logs: number };
  /** events the exporters dropped (a full queue or a failed export): 0 when the figures are whole */
  dropped: number;
}

/** The otlp settings of the `on` exporters; undefined means both signals off. */
export interface EventSettings {
  tracing: { endpoint: string };
  otlp: unknown;
}

export interface OtlpCostDeps {
  /** a fresh exporter against the phase's simulator, with these event settings (or none) */
  startExporter(events?: EventSettings): Promise<Child<ExporterHello>>;
  /** moves the simulator's clock (the exporters' clocks are moved by the phase) */
  advanceSimulator(ms: number): Promise<void>;
  /** stops an exporter, whatever happens */
  stopExporter(exporter: Child<ExporterHello>): Promise<void>;
}

const HOUR_MS = 3_600_000;

export interface OtlpSink {
  url: string;
  counts: { spans: number; logs: number };
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP (JSON) endpoint that counts the spans and log records it is
 * sent. It counts keys in the text rather than parsing: the sink shares the
 * two cores with the simulator and the exporter, and a count is all it needs.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  const counts = { spans: 0, logs: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // "spanId" with its opening quote: parentSpanId does not match it.
      if (req.url === '/v1/traces') counts.spans += text.split('"spanId"').length - 1;
      if (req.url === '/v1/logs') counts.logs += text.split('"dataprotect.audit.id"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const cost = (report: RoundCost): RoundCost => ({ seconds: report.seconds, cpuSeconds: report.cpuSeconds });
const costText = (c: RoundCost): string => `${c.seconds.toFixed(2)} s wall, ${c.cpuSeconds.toFixed(2)} s CPU`;

function eventSettings(sink: OtlpSink, backfill: string): EventSettings {
  return {
    tracing: { endpoint: `${sink.url}/v1/traces` },
    // A queue that holds a whole window: what is measured is the forwarding, not the drops.
    otlp: { activities: { enabled: true }, auditLogs: { enabled: true }, backfill, maxQueueSize: 1_000_000, timeout: '60s' },
  };
}

/** The phase (see the module comment). The simulator's clock ends an hour later than it started. */
export async function otlpCostPhase(deps: OtlpCostDeps, log: (line: string) => void): Promise<OtlpCostFigures> {
  const sink = await startOtlpSink();
  try {
    const off = await deps.startExporter();
    const on = await deps.startExporter(eventSettings(sink, '0s'));
    let hour: OtlpCostFigures['hourLater'];
    let cold: OtlpCostFigures['cold'];
    let dropped = 0;
    try {
      const coldOff = await off.call<RoundReport>('round');
      const coldOn = await on.call<RoundReport>('round');
      cold = { off: cost(coldOff), on: cost(coldOn) };
      const coldSent = { ...sink.counts };
      log(`OTLP cold round off: ${costText(coldOff)}; on: ${costText(coldOn)}; ${coldSent.spans} spans and ${coldSent.logs} log records sent`);

      // The exporters' clocks follow the simulator's, as a running exporter's would over that hour.
      await deps.advanceSimulator(HOUR_MS);
      for (const exporter of [off, on]) await exporter.call('advance', HOUR_MS);
      const hourOff = await off.call<RoundReport>('round');
      const hourOn = await on.call<RoundReport>('round');
      const send = await on.call<FlushReport>('flushEvents');
      dropped += send.dropped;
      const spans = sink.counts.spans - coldSent.spans;
      const logs = sink.counts.logs - coldSent.logs;
      hour = { off: cost(hourOff), on: cost(hourOn), send: cost(send), spans, logs };
      log(`OTLP round an hour later off: ${costText(hourOff)}; on: ${costText(hourOn)}; ${spans} spans and ${logs} log records sent; what was left to send after the round: ${costText(send)}`);
    } finally {
      await deps.stopExporter(off);
      await deps.stopExporter(on);
    }

    const before = { ...sink.counts };
    const full = await deps.startExporter(eventSettings(sink, '24h'));
    try {
      const round = await full.call<RoundReport>('round');
      const send = await full.call<FlushReport>('flushEvents');
      dropped += send.dropped;
      const spans = sink.counts.spans - before.spans;
      const logs = sink.counts.logs - before.logs;
      log(`OTLP cold round with a 24 h backfill: ${costText(round)}; ${spans} spans and ${logs} log records sent; what was left to send after the round: ${costText(send)}`);
      if (dropped > 0) log(`OTLP: ${dropped} events dropped: the figures above are not whole`);
      return { cold, hourLater: hour, backfill: { round: cost(round), send: cost(send), spans, logs }, dropped };
    } finally {
      await deps.stopExporter(full);
    }
  } finally {
    await sink.close();
  }
}
