/** The channel between a test and zlib-handle-count.ts in the collection thread; apart, so that the test does not load the counter. */
export const ZLIB_COUNT_CHANNEL = 'zlib-handle-count';
export type ZlibCountRequest = 'count' | 'probe';
export interface ZlibCountReply {
  handles: number;
}
