/**
 * Series as served: a gzip member per family in one buffer, prepared once when a run succeeds. The serving side keeps only these bytes
 * (a transferred ArrayBuffer), which scrapes slice; the few status and self-metric series are prepared at each scrape.
 */
import { gzipSync } from 'node:zlib';
import type { HistogramSample, Sample } from '../collectors/types';
import type { ReadyResult } from '../snapshot/store';
import { formatHistogram, formatSample } from './format';

/**
 * Text as one gzip member, at level 1: 2 MB instead of 20 MB a scrape, at the least CPU. Concatenated members are one valid gzip stream
 * (RFC 1952; Go's and Node's readers read every member).
 */
export function gzipMember(text: string): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 1 });
}

/** Series lines, each with its family's name, gathered by family (in order of first appearance) and compressed. */
export function prepareLines(lines: ReadonlyArray<readonly [family: string, line: string]>): ReadyResult {
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
  return { bytes, families, series: lines.length };
}

export function prepareResult(result: { samples: readonly Sample[]; histograms: readonly HistogramSample[] }): ReadyResult {
  const lines = result.samples.map((sample) => [sample.name, formatSample(sample.name, sample.labels, sample.value)] as const);
  for (const histogram of result.histograms) lines.push([histogram.name, formatHistogram(histogram)]);
  return prepareLines(lines);
}

export function familyMember(result: ReadyResult, family: string): Buffer | undefined {
  const entry = result.families.find(([name]) => name === family);
  return entry ? Buffer.from(result.bytes.buffer, result.bytes.byteOffset + entry[1], entry[2] - entry[1]) : undefined;
}
