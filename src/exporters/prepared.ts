/**
 * A collector result ready to be served: its series text per family, UTF-8
 * encoded, and the same as gzip members. A result (the samples and
 * histograms of one successful run) is immutable and shared by every record
 * the store derives from it (run started, run failed), so it is prepared once
 * per result, not once per record.
 *
 * Large results (the assets collector's 60,000 series on a 10,000-asset
 * estate) are prepared in the background: formatted in slices that yield to
 * the event loop and gzipped on libuv's thread pool, so scrapes keep being
 * answered meanwhile (from the previous version of that record: see
 * MetricsRenderer). Small ones are prepared at once, which costs less than
 * the bookkeeping.
 */
import { gzip as gzipCallback, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import type { HistogramSample, Sample } from '../collectors/types';
import type { CollectorRecord } from '../snapshot/store';
import { formatHistogram, formatSample } from './format';
import { TimeSlices, yieldToEventLoop } from '../util/time-slices';

const gzipAsync = promisify(gzipCallback);

/**
 * Level 1: the point is to send 2 MB instead of 20 MB per scrape, at the
 * least CPU. Each buffer is its own gzip member; a body is a concatenation of
 * members, which is a valid gzip stream (RFC 1952; Go's and Node's readers
 * read every member).
 */
export const GZIP_OPTIONS = { level: 1 } as const;

export interface PreparedResult {
  /** series text per family name, UTF-8 */
  readonly plain: ReadonlyMap<string, Buffer>;
  /** the same, each buffer a gzip member */
  readonly gzip: ReadonlyMap<string, Buffer>;
}

/** Results with at least this many series are prepared in the background. */
export const BACKGROUND_MIN_SERIES = 5_000;

const prepared = new WeakMap<readonly Sample[], { histograms: readonly HistogramSample[]; result: PreparedResult }>();
const inFlight = new WeakMap<readonly Sample[], Promise<PreparedResult>>();

/** Whether a record's result is large enough to be prepared in the background (see BACKGROUND_MIN_SERIES). */
export function isLarge(record: CollectorRecord): boolean {
  return record.samples.length + record.histograms.length >= BACKGROUND_MIN_SERIES;
}

/** The prepared form of a record's result, if it is ready. */
export function preparedOf(record: CollectorRecord): PreparedResult | undefined {
  const entry = prepared.get(record.samples);
  return entry && entry.histograms === record.histograms ? entry.result : undefined;
}

/** A record's series per family as UTF-8: the prepared form when ready, else formatted now (without the gzip work). */
export function plainOf(record: CollectorRecord): ReadonlyMap<string, Buffer> {
  return preparedOf(record)?.plain ?? encodeAll(formatAll(record.samples, record.histograms));
}

/** Prepares a record's result now, on this thread (or returns it when ready). */
export function prepareNow(record: CollectorRecord): PreparedResult {
  const ready = preparedOf(record);
  if (ready) return ready;
  const plain = encodeAll(formatAll(record.samples, record.histograms));
  const gzip = new Map<string, Buffer>();
  for (const [family, body] of plain) gzip.set(family, gzipSync(body, GZIP_OPTIONS));
  return remember(record, { plain, gzip });
}

/**
 * Prepares a record's result in the background; resolves when it is ready.
 * One preparation per result however often it is asked for.
 */
export function prepareInBackground(record: CollectorRecord): Promise<PreparedResult> {
  const ready = preparedOf(record);
  if (ready) return Promise.resolve(ready);
  let running = inFlight.get(record.samples);
  if (!running) {
    running = (async () => {
      // Lines formatted in a slice are encoded at its end: joining and encoding a
      // 60,000-series family in one piece took 20 ms idle, 100-200 ms under load.
      const lines = new Map<string, string[]>();
      const encoded = new Map<string, Buffer[]>();
      const encodeLines = (): void => {
        for (const [family, parts] of lines) {
          if (parts.length === 0) continue;
          appendTo(encoded, family, Buffer.from(parts.join(''), 'utf8'));
          parts.length = 0;
        }
      };
      const slices = new TimeSlices();
      await slices.next();
      for (const sample of record.samples) {
        appendTo(lines, sample.name, formatSample(sample.name, sample.labels, sample.value));
        if (slices.due()) {
          encodeLines();
          await slices.next();
        }
      }
      for (const sample of record.histograms) appendTo(lines, sample.name, formatHistogram(sample));
      encodeLines();
      await yieldToEventLoop();
      const plain = new Map<string, Buffer>();
      for (const [family, buffers] of encoded) plain.set(family, buffers.length === 1 ? (buffers[0] as Buffer) : Buffer.concat(buffers));
      // libuv's thread pool compresses the families in parallel, off the event loop.
      const compressed = await Promise.all([...plain].map(async ([family, body]) => [family, await gzipAsync(body, GZIP_OPTIONS)] as const));
      return remember(record, { plain, gzip: new Map(compressed) });
    })();
    inFlight.set(record.samples, running);
    const forget = () => inFlight.delete(record.samples);
    running.then(forget, forget);
  }
  return running;
}

/** Series text per family name. */
export function formatAll(samples: readonly Sample[], histograms: readonly HistogramSample[]): Map<string, string> {
  const text = new Map<string, string[]>();
  for (const sample of samples) appendTo(text, sample.name, formatSample(sample.name, sample.labels, sample.value));
  for (const sample of histograms) appendTo(text, sample.name, formatHistogram(sample));
  const joined = new Map<string, string>();
  for (const [family, parts] of text) joined.set(family, parts.join(''));
  return joined;
}

function encodeAll(text: ReadonlyMap<string, string>): Map<string, Buffer> {
  const plain = new Map<string, Buffer>();
  for (const [family, body] of text) plain.set(family, Buffer.from(body, 'utf8'));
  return plain;
}

function appendTo<T>(byFamily: Map<string, T[]>, family: string, part: T): void {
  const parts = byFamily.get(family);
  if (parts) parts.push(part);
  else byFamily.set(family, [part]);
}

function remember(record: CollectorRecord, result: PreparedResult): PreparedResult {
  prepared.set(record.samples, { histograms: record.histograms, result });
  return result;
}
