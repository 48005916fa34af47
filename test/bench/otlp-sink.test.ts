/**
 * The benchmark's OTLP sink (bench/support/otlp-cost.ts) counts spans and log
 * records by keys in the request text instead of parsing it. Checked here
 * against the tests' parsing receiver: two exporters on the same simulated
 * instant read the same events and forward them with a 24 h backfill, one to
 * the sink, one to the receiver; the counts must be equal. The exporters run
 * in child processes (test/otlp/exporter-process.ts: the OTLP exporters'
 * dynamic import is refused inside jest's sandbox).
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { startOtlpSink, type OtlpSink } from '../../bench/support/otlp-cost';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { startOtlpReceiver, type OtlpReceiver } from '../otlp/receiver';

let sim: RunningSimulator;
let sink: OtlpSink;
let receiver: OtlpReceiver;

beforeAll(async () => {
  sim = await startSimulator({ seed: 17, size: { assets: 40, activitiesPerDay: 600, auditEntries: 100, auditEntriesPerDay: 300, replicatedVms: 1, storageSystems: 1 } });
  sink = await startOtlpSink();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await sink.close();
  await receiver.close();
  await sim.close();
});

/**
 * Starts an exporter forwarding to `otlpUrl` at the simulator's instant (its
 * first round runs at start), sends what it queued and stops it; the events
 * it counted as dropped.
 */
async function forwardOnce(otlpUrl: string): Promise<{ traces: number; logs: number }> {
  const child = fork(join(__dirname, '../otlp/exporter-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  let nextId = 0;
  const ask = (message: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const onMessage = (reply: { id: number } & Record<string, unknown>) => {
        if (reply.id !== id) return;
        child.off('message', onMessage);
        if (reply.error) reject(new Error(String(reply.error)));
        else resolve(reply);
      };
      child.on('message', onMessage);
      child.send({ id, ...message });
    });
  try {
    const config = {
      web: { listenAddress: '127.0.0.1', port: 0 },
      collection: { activityClassTypes: ['JOB_GROUP', 'JOB'] },
      tracing: { endpoint: `${otlpUrl}/v1/traces` },
      otlp: { activities: { enabled: true }, auditLogs: { enabled: true }, backfill: '24h', maxQueueSize: 100_000 },
      targets: [{ name: 'backup', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password }],
    };
    const started = await ask({ type: 'start', config, now: sim.clock.now().getTime() });
    expect(started.ok).toEqual([true, true]);
    await ask({ type: 'flush' });
    const metrics = await (await fetch(`${String(started.address)}/metrics`)).text();
    const dropped = (signal: string) => Number(new RegExp(`^dataprotect_otlp_dropped_total\\{signal="${signal}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    await ask({ type: 'stop' });
    return { traces: dropped('traces'), logs: dropped('logs') };
  } finally {
    child.disconnect();
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
}

it('counts exactly the spans and log records a parsing receiver gets from the same events', async () => {
  expect(await forwardOnce(sink.url)).toEqual({ traces: 0, logs: 0 });
  expect(await forwardOnce(receiver.url)).toEqual({ traces: 0, logs: 0 });

  // Not vacuous: job groups with jobs under them (a parentSpanId must not count as a span) and audit entries.
  expect(receiver.spans.filter((span) => span.parentSpanId).length).toBeGreaterThan(0);
  expect(receiver.spans.filter((span) => !span.parentSpanId).length).toBeGreaterThan(0);
  expect(receiver.logs.length).toBeGreaterThan(0);
  expect(sink.counts).toEqual({ spans: receiver.spans.length, logs: receiver.logs.length });
}, 60_000);
