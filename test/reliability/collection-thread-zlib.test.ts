/**
 * The collection thread makes no node:zlib handle, in its rounds or in its OTLP exports, even when the environment asks the OTLP
 * exporters for gzip. That thread is ended at any instruction (its heap ceiling, the stop deadline), and Node aborts the whole
 * process when it tears down a thread ended between the construction of a zlib handle and its initialisation ("close before init"):
 * with hundreds of gzip members a round, an end in a round meets that sooner or later. zlib-handle-count.ts counts them in the thread.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { parseConfig } from '../../src/config/load';
import { CollectionHost } from '../../src/collection/host';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { silentLogger } from '../support/collect';
import { eventually } from '../support/cli-process';
import { ZLIB_COUNT_CHANNEL, type ZlibCountReply, type ZlibCountRequest } from '../support/zlib-count-channel';
import { startOtlpReceiver, type OtlpReceiver } from '../otlp/receiver';

const SIZE = {
  assets: 60,
  copiesPerAsset: 2,
  activitiesPerDay: 4_000,
  auditEntries: 50,
  auditEntriesPerDay: 4_000,
  replicatedVms: 0,
  storageSystems: 1,
};
const EIGHT_MINUTES = 8 * 60_000;

describe('the collection thread', () => {
  let sim: RunningSimulator;
  let receiver: OtlpReceiver;
  let host: CollectionHost | undefined;
  const channel = new BroadcastChannel(ZLIB_COUNT_CHANNEL);

  /** The thread's count of zlib handles, after it has done what `request` asks. */
  const ask = (request: ZlibCountRequest): Promise<number> =>
    new Promise((resolve) => {
      channel.onmessage = (event) => resolve((event as { data: ZlibCountReply }).data.handles);
      channel.postMessage(request);
    });

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: SIZE, startTime: new Date() });
    receiver = await startOtlpReceiver();
  });

  afterAll(async () => {
    try {
      await host?.stop();
    } finally {
      channel.close();
      await receiver?.close();
      await sim?.close();
    }
  });

  it('makes no zlib handle in rounds and OTLP exports, with OTEL_EXPORTER_OTLP_COMPRESSION=gzip', async () => {
    const config = parseConfig({
      tracing: { endpoint: `${receiver.url}/v1/traces` },
      otlp: { activities: { enabled: true }, auditLogs: { enabled: true } },
      targets: [{ name: 'mgmt', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password }],
    });
    const ignore = (): void => undefined;
    const observer = { onRequest: ignore, onOtlpDropped: ignore, recordFirstRound: ignore, onCollectionRestart: ignore };
    host = new CollectionHost(config, {
      logger: silentLogger,
      tracing: { endpoint: `${receiver.url}/v1/traces`, reason: 'test' },
      preload: [require.resolve('../support/zlib-handle-count')],
      observer,
    });
    const results = await host.runOnce();
    expect(results.length).toBeGreaterThan(5);
    expect(results.every((result) => result === 'success')).toBe(true);
    // What completes after the first round is forwarded as spans and log records.
    sim.clock.advance(EIGHT_MINUTES);
    host.advanceClock(EIGHT_MINUTES);
    await host.runOnce();
    const collectionSpan = (span: { name: string }): boolean => span.name.startsWith('collect ');
    await eventually(() => receiver.logs.length > 0 && receiver.spans.some(collectionSpan), 40_000, 'an audit log record and a run span');
    await eventually(() => receiver.spans.some((span) => !collectionSpan(span)), 40_000, 'an activity span');

    expect(receiver.gzipped).toBe(0);
    expect(await ask('count')).toBe(0);
    expect(await ask('probe')).toBe(1);
  });
});
