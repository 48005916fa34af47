/**
 * Concurrent /metrics scrapes, as several Prometheus servers (or one with a
 * short interval and many federated jobs) would make them: `concurrency`
 * clients each scraping back to back, each on its own connection.
 */
import { Agent, request } from 'undici';

export interface ScrapeFigures {
  scrapes: number;
  failures: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** bytes of the last successful answer */
  bytes: number;
}

/** The q-quantile (0..1) of the values, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/**
 * Scrapes `url` with `concurrency` clients until `keepGoing()` turns false
 * (checked before each scrape), and returns the latencies' summary.
 */
export async function scrapeLoad(url: string, concurrency: number, keepGoing: () => boolean, options: { gzip?: boolean; timeoutMs?: number } = {}): Promise<ScrapeFigures> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Prometheus asks for gzip; bytes are counted as received (compressed).
  const headers = options.gzip ? { 'accept-encoding': 'gzip' } : {};
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let failures = 0;
  let bytes = 0;
  const client = async (): Promise<void> => {
    while (keepGoing()) {
      const started = performance.now();
      try {
        const response = await request(url, { dispatcher: agent, headers, signal: AbortSignal.timeout(timeoutMs) });
        // Counted, not decoded: decoding 20 MB answers would load this process, which shares the cores with the exporter.
        let received = 0;
        for await (const chunk of response.body) received += (chunk as Buffer).length;
        if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
        latencies.push(performance.now() - started);
        bytes = received;
      } catch {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  await agent.close();
  return {
    scrapes: latencies.length,
    failures,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies.length ? Math.max(...latencies) : Number.NaN,
    bytes,
  };
}

/** Series in an exposition text: the lines that are neither comments nor blank. */
export function countSeries(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) if (line && !line.startsWith('#')) count += 1;
  return count;
}
