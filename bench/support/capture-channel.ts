/**
 * The channel between the request capture in the collection thread (collection-capture.ts) and the exporter child's serving
 * thread. A module of its own so that the serving thread loads no collection code, as in the product (src/exporter.ts): the
 * capture's modules would add to its heap and to the marking a scrape can meet.
 */
import type { Captured } from './bare-fetch';

export const CAPTURE_CHANNEL = 'dataprotect-bench-capture';

export type CaptureMessage =
  | { command: 'ready' }
  | { command: 'start' }
  | { command: 'started' }
  | { command: 'stop' }
  | { command: 'captured'; captured: Captured[] };
