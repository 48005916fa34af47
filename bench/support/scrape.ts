/**
 * /metrics as Prometheus servers scrape it, timed:
 * - intervalScrapes: an HA pair (or any number of servers), each scraping
 *   every interval from its own start offset in the interval, as Prometheus
 *   spreads its targets' scrapes; the load users have, and the budgeted one;
 * - scrapeLoad: clients scraping back to back, a stress figure;
 * - exposition: the text and its size plain and gzip.
 * Each scraper has a connection of its own and asks for gzip unless told
 * otherwise; bytes are counted as received (compressed), not decoded.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';

export interface ScrapeFigures {
  scrapes: number;
  failures: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** bytes of the last successful answer */
  bytes: number;
}

/** The q-quantile (0..1) of the values, nearest-rank (with fewer than 100 values the p99 is the maximum). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

interface ScrapeOptions {
  gzip?: boolean;
  timeoutMs?: number;
}

/** Collects the latencies of scrapes and summarises them. */
class ScrapeTally {
  private readonly latencies: number[] = [];
  private failures = 0;
  private bytes = 0;

  constructor(
    private readonly url: string,
    private readonly dispatcher: Dispatcher,
    private readonly options: ScrapeOptions,
  ) {}

  async scrape(): Promise<void> {
    const started = performance.now();
    try {
      const headers = this.options.gzip === false ? {} : { 'accept-encoding': 'gzip' };
      const response = await request(this.url, { dispatcher: this.dispatcher, headers, signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000) });
      let received = 0;
      for await (const chunk of response.body) received += (chunk as Buffer).length;
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      this.latencies.push(performance.now() - started);
      this.bytes = received;
    } catch {
      this.failures += 1;
    }
  }

  figures(): ScrapeFigures {
    return {
      scrapes: this.latencies.length,
      failures: this.failures,
      p50Ms: quantile(this.latencies, 0.5),
      p99Ms: quantile(this.latencies, 0.99),
      maxMs: this.latencies.length ? Math.max(...this.latencies) : Number.NaN,
      bytes: this.bytes,
    };
  }
}

/**
 * `scrapers` servers, each scraping `url` every `intervalMs` for `durationMs`:
 * server i starts at a random point of the i-th equal share of the interval
 * (two servers of an HA pair never scrape in step, nor always apart by the
 * same amount from the collection rounds).
 */
export async function intervalScrapes(url: string, scrapers: number, intervalMs: number, durationMs: number, options: ScrapeOptions = {}): Promise<ScrapeFigures & { offsetsMs: number[] }> {
  const agent = new Agent({ connections: scrapers, pipelining: 1 });
  const tally = new ScrapeTally(url, agent, options);
  const offsetsMs = Array.from({ length: scrapers }, (_, i) => Math.round(((i + Math.random()) * intervalMs) / scrapers));
  const started = performance.now();
  const scraper = async (offsetMs: number): Promise<void> => {
    for (let due = offsetMs; due < durationMs; due += intervalMs) {
      await sleep(Math.max(0, due - (performance.now() - started)));
      await tally.scrape();
    }
  };
  await Promise.all(offsetsMs.map(scraper));
  await agent.close();
  return { ...tally.figures(), offsetsMs };
}

/** `concurrency` clients scraping `url` back to back until `keepGoing()` turns false (checked before each scrape). */
export async function scrapeLoad(url: string, concurrency: number, keepGoing: () => boolean, options: ScrapeOptions = {}): Promise<ScrapeFigures> {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const tally = new ScrapeTally(url, agent, options);
  const client = async (): Promise<void> => {
    while (keepGoing()) await tally.scrape();
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  await agent.close();
  return tally.figures();
}

export interface Exposition {
  series: number;
  plainBytes: number;
  gzipBytes: number;
}

/** One scrape plain and one gzip: the series count and both sizes. */
export async function exposition(url: string): Promise<Exposition> {
  const plain = await (await request(url)).body.text();
  const gzipped = await request(url, { headers: { 'accept-encoding': 'gzip' } });
  const gzipBytes = (await gzipped.body.arrayBuffer()).byteLength;
  return { series: countSeries(plain), plainBytes: Buffer.byteLength(plain), gzipBytes };
}

/** Series in an exposition text: the lines that are neither comments nor blank. */
export function countSeries(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) if (line && !line.startsWith('#')) count += 1;
  return count;
}
