/**
 * A collector result as it is served: each family's series text as one gzip
 * member, all members in one buffer. Prepared once, on the collection side,
 * when a run succeeds; the serving side keeps only these bytes (they cross
 * threads as a transferred ArrayBuffer) and a scrape only slices them.
 */
import { gzipSync } from 'node:zlib';
import type { HistogramSample, Sample } from '../collectors/types';
import type { ReadyResult } from '../snapshot/store';
import { formatHistogram, formatSample } from './format';

/**
 * Level 1: the point is to send 2 MB instead of 20 MB per scrape, at the
 * least CPU. A body is a concatenation of members, which is a valid gzip
 * stream (RFC 1952; Go's and Node's readers read every member).
 */
export const GZIP_OPTIONS = { level: 1 } as const;

/** The series of one successful run, by family, formatted and compressed. */
export function prepareResult(result: { samples: readonly Sample[]; histograms: readonly HistogramSample[] }): ReadyResult {
  const texts = new Map<string, string[]>();
  const add = (family: string, line: string): void => {
    const lines = texts.get(family);
    if (lines) lines.push(line);
    else texts.set(family, [line]);
  };
  for (const sample of result.samples) add(sample.name, formatSample(sample.name, sample.labels, sample.value));
  for (const histogram of result.histograms) add(histogram.name, formatHistogram(histogram));
  const members: Buffer[] = [];
  const families: Array<[string, number, number]> = [];
  let offset = 0;
  for (const [family, lines] of texts) {
    const member = gzipSync(Buffer.from(lines.join(''), 'utf8'), GZIP_OPTIONS);
    members.push(member);
    families.push([family, offset, offset + member.length]);
    offset += member.length;
  }
  // A buffer of its own (not a slice of Node's shared pool): it is transferred whole to the serving thread.
  const bytes = new Uint8Array(new ArrayBuffer(offset));
  offset = 0;
  for (const member of members) {
    bytes.set(member, offset);
    offset += member.length;
  }
  return { bytes, families, series: result.samples.length + result.histograms.length };
}

/** One family's gzip member of a result; empty when the result has none of its series. */
export function familyMember(result: ReadyResult, family: string): Buffer | undefined {
  const entry = result.families.find(([name]) => name === family);
  return entry ? Buffer.from(result.bytes.buffer, result.bytes.byteOffset + entry[1], entry[2] - entry[1]) : undefined;
}
