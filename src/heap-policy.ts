/**
 * How far V8 lets the old generation grow between two full collections.
 *
 * Why the daemon sets it: under the heap cap that keeps a large estate's peak
 * RSS under 400 MB (--max-old-space-size=320, shipped in the Dockerfile and
 * the Kubernetes manifests), V8 lets the old generation grow by only about
 * 1.3 x its live set (the factor shrinks with the maximum heap size). A cold
 * round on 10,000 assets promotes a few hundred MB of short-lived JSON, so the
 * 80-130 MB live set (activity and audit windows, asset lists, series) was
 * marked 25-40 times per round. With 1.6 the exporter's CPU for that round
 * went from 9.4 to 7.8 s (median of 4 runs each); 2.0 saved a little more but
 * took the peak RSS of the scrape phase to 405 MB. The cap still bounds the
 * heap (docs/performance.md).
 *
 * Node does not accept this V8 flag in NODE_OPTIONS, so the daemon sets it at
 * start; V8 reads it whenever it sets the next limit. A --heap-growing-percent
 * given on node's command line is left as it is.
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 60;

/** Sets the growing factor unless node was started with one; returns the flag set, if any. */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): string | undefined {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  v8.setFlagsFromString(flag);
  return flag;
}
