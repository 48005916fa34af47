/**
 * Loaded by the collection thread before it starts (CollectionHost's
 * preload): installs the request capture of bare-fetch.ts there, where the
 * clients run, and answers the exporter child's serving thread over a
 * BroadcastChannel (the host's channel carries only the product's messages).
 */
import { BroadcastChannel, workerData } from 'node:worker_threads';
import { fromWire, type WorkerStart } from '../../src/collection/protocol';
import { installRequestCapture } from './bare-fetch';
import { CAPTURE_CHANNEL, type CaptureMessage } from './capture-channel';

if (workerData && (workerData as WorkerStart).config) {
  const capture = installRequestCapture(fromWire((workerData as WorkerStart).config));
  const channel = new BroadcastChannel(CAPTURE_CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    const message = (event as { data: CaptureMessage }).data;
    if (message.command === 'start') {
      capture.start();
      channel.postMessage({ command: 'started' } satisfies CaptureMessage);
    } else if (message.command === 'stop') channel.postMessage({ command: 'captured', captured: capture.stop() } satisfies CaptureMessage);
  };
  // A message to a channel not yet open is lost: the serving thread waits for this one first.
  channel.postMessage({ command: 'ready' } satisfies CaptureMessage);
}
