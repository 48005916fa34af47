/**
 * Loaded by the collection thread before it starts (CollectionHost's preload): counts the node:zlib handles the thread makes, with an
 * async hook, and answers over a BroadcastChannel. It asks the OTLP exporters for gzip through their environment first, so that an
 * exporter that honoured it would be counted. On 'probe' it makes one handle itself: a count that never moves proves nothing.
 */
import { createHook } from 'node:async_hooks';
import { BroadcastChannel } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { ZLIB_COUNT_CHANNEL, type ZlibCountReply, type ZlibCountRequest } from './zlib-count-channel';

process.env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';

let handles = 0;
createHook({
  init: (_id, type) => {
    if (type === 'ZLIB') handles += 1;
  },
}).enable();

const channel = new BroadcastChannel(ZLIB_COUNT_CHANNEL);
channel.unref();
channel.onmessage = (event) => {
  if ((event as { data: ZlibCountRequest }).data === 'probe') gzipSync('probe');
  channel.postMessage({ handles } satisfies ZlibCountReply);
};
