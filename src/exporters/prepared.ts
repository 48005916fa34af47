/**
 * Series text as it is served: each family's text as one gzip member, all
 * members in one buffer. A collector's result is prepared once, on the
 * collection side, when a run succeeds; the serving side keeps only these
 * bytes (they cross threads as a transferred ArrayBuffer) and a scrape only
 * slices them. The status series and the self-metrics are prepared the same
 * way at a scrape (they are few).
 */
import { gzipSync } from 'node:zlib';
import type { HistogramSample, Sample } from '../collectors/types';
import type { ReadyResult } from '../snapshot/store';
import { formatHistogram, formatSample } from './format';

/**
 * Text as one gzip member of a body. Level 1: the point is to send 2 MB
 * instead of 20 MB per scrape, at the least CPU. A body is a concatenation of
 * members, which is a valid gzip stream (RFC 1952; Go's and Node's readers
 * read every member).
 */
export function gzipMember(text: string): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 1 });
}

/** Series lines, each with its family's name, gathered by family (in order of first appearance) and compressed. */
export function prepareLines(lines: Iterable<readonly [family: string, line: string]>, series: number): ReadyResult {
  const texts = new Map<string, string[]>();
  for (const [family, line] of lines) {
    const list = texts.get(family);
    if (list) list.push(line);
    else texts.set(family, [line]);
  }
  const members: Buffer[] = [];
  const families: Array<[string, number, number]> = [];
  let offset = 0;
  for (const [family, list] of texts) {
    const member = gzipMember(list.join(''));
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
  return { bytes, families, series };
}

/** The series of one successful run, by family, formatted and compressed. */
export function prepareResult(result: { samples: readonly Sample[]; histograms: readonly HistogramSample[] }): ReadyResult {
  const lines = result.samples.map((sample) => [sample.name, formatSample(sample.name, sample.labels, sample.value)] as const);
  for (const histogram of result.histograms) lines.push([histogram.name, formatHistogram(histogram)]);
  return prepareLines(lines, lines.length);
}

/** One family's gzip member of a result; empty when the result has none of its series. */
export function familyMember(result: ReadyResult, family: string): Buffer | undefined {
  const entry = result.families.find(([name]) => name === family);
  return entry ? Buffer.from(result.bytes.buffer, result.bytes.byteOffset + entry[1], entry[2] - entry[1]) : undefined;
}
