/**
 * Events queued in the collection thread's forwarder (and tasks waiting for their job) die with the thread, and the restarted
 * thread resumes the counters from the checkpoint of the run that queued them, so they are never sent again: they are counted in
 * dataprotect_otlp_dropped_total, never lost without a trace.
 */
import { Agent, request } from 'undici';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import type { CollectionHost } from '../../src/collection/host';
import { COLLECTORS } from '../../src/collectors/registry';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';
import { startOtlpReceiver, type OtlpReceiver } from './receiver';

const MIN = 60_000;
let sim: RunningSimulator;
let receiver: OtlpReceiver;
let agent: Agent;
let exporter: Exporter | undefined;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 24,
    size: { assets: 40, activitiesPerDay: 500, auditEntries: 100, auditEntriesPerDay: 4000, replicatedVms: 0, storageSystems: 1 },
    startTime: new Date(),
  });
  receiver = await startOtlpReceiver();
  agent = new Agent({ connections: 4 });
});
afterAll(async () => {
  await exporter?.stop();
  await agent.close();
  await receiver.close();
  await sim.close();
});

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function metrics(): Promise<string> {
  const response = await request(`${exporter?.address()}/metrics`, { dispatcher: agent, signal: AbortSignal.timeout(15_000) });
  return response.body.text();
}

const dropped = (text: string, signal: string): number =>
  Number(new RegExp(`^dataprotect_otlp_dropped_total\\{signal="${signal}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
const restarts = (text: string): number => Number(/dataprotect_exporter_collection_restarts_total\{reason="exit"\} (\d+)/.exec(text)?.[1] ?? 0);

it('audit entries queued for OTLP when the collection thread dies are counted as dropped, not sent again', async () => {
  const others = COLLECTORS.management.filter((definition) => definition.name !== 'audit-logs');
  const config: ExporterConfig = parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    tracing: { endpoint: `${receiver.url}/v1/traces` },
    otlp: { auditLogs: { enabled: true }, timeout: '10m' },
    targets: [{
      name: 'mgmt', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password,
      collectors: Object.fromEntries(others.map((definition) => [definition.name, { enabled: false }])),
    }],
  });
  receiver.mode = 'silent'; // a slow collector: nothing is acknowledged while the thread lives
  exporter = new Exporter(config, silentLogger, { processMetrics: false });
  await exporter.start();
  const host = exporter.runtime as CollectionHost;
  await until(() => host.firstRoundComplete());
  const from = sim.clock.now().getTime();
  sim.clock.advance(8 * MIN);
  host.advanceClock(8 * MIN);
  for (;;) {
    const results = await host.runOnce().catch(() => []);
    if (results.length === 1 && results[0] === 'success') break;
  }
  const appeared = sim.estate.management.auditEntries({ since: new Date(from + 1), until: new Date(sim.clock.now().getTime() + 1) }).length;
  expect(appeared).toBeGreaterThan(5); // counted and queued for OTLP by the run that succeeded

  await host.interrupt();
  await until(async () => restarts(await metrics()) === 1);
  await until(() => host.firstRoundComplete());
  receiver.mode = 'accept';
  // The dead thread can report nothing more: what it held is counted lost by now, and the new thread does not send it again.
  expect(dropped(await metrics(), 'logs')).toBe(appeared);
  expect(receiver.logs).toHaveLength(0);
});
