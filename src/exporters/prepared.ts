/**
 * A collector result ready to be served: its series text per family, UTF-8
 * encoded, and the same as gzip members. A result (the samples and
 * histograms of one successful run) is immutable and shared by every record
 * the store derives from it (run started, run failed), so it is formatted
 * once per result, not once per record or per scrape; a scrape only collects
 * references to these buffers.
 */
import { gzipSync } from 'node:zlib';
import type { HistogramSample, Sample } from '../collectors/types';
import type { CollectorRecord } from '../snapshot/store';
import { formatHistogram, formatSample } from './format';

/**
 * Level 1: the point is to send 2 MB instead of 20 MB per scrape, at the
 * least CPU. Each buffer is its own gzip member; a body is a concatenation of
 * members, which is a valid gzip stream (RFC 1952; Go's and Node's readers
 * read every member).
 */
export const GZIP_OPTIONS = { level: 1 } as const;

/** A result's series per family name: UTF-8 text, and the same compressed on first use. */
export class PreparedResult {
  private compressed: ReadonlyMap<string, Buffer> | undefined;

  constructor(readonly identity: ReadonlyMap<string, Buffer>) {}

  /** each family's buffer as a gzip member; compressed once, when a scraper first accepts gzip */
  get gzip(): ReadonlyMap<string, Buffer> {
    this.compressed ??= new Map([...this.identity].map(([family, body]) => [family, gzipSync(body, GZIP_OPTIONS)]));
    return this.compressed;
  }
}

const prepared = new WeakMap<readonly Sample[], { histograms: readonly HistogramSample[]; result: PreparedResult }>();

/** The prepared form of a record's result, formatted now if this result was never served. */
export function preparedOf(record: CollectorRecord): PreparedResult {
  const entry = prepared.get(record.samples);
  if (entry && entry.histograms === record.histograms) return entry.result;
  const result = new PreparedResult(formatAll(record.samples, record.histograms));
  prepared.set(record.samples, { histograms: record.histograms, result });
  return result;
}

/** Series text per family name, UTF-8. */
function formatAll(samples: readonly Sample[], histograms: readonly HistogramSample[]): Map<string, Buffer> {
  const text = new Map<string, string[]>();
  for (const sample of samples) appendTo(text, sample.name, formatSample(sample.name, sample.labels, sample.value));
  for (const sample of histograms) appendTo(text, sample.name, formatHistogram(sample));
  const plain = new Map<string, Buffer>();
  for (const [family, parts] of text) plain.set(family, Buffer.from(parts.join(''), 'utf8'));
  return plain;
}

function appendTo(byFamily: Map<string, string[]>, family: string, part: string): void {
  const parts = byFamily.get(family);
  if (parts) parts.push(part);
  else byFamily.set(family, [part]);
}
