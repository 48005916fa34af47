/**
 * Series as served: gzip members per family in one buffer, prepared once when a run succeeds. The serving side keeps only these bytes
 * (a transferred ArrayBuffer), which scrapes slice; the few status and self-metric series are prepared at each scrape.
 *
 * Each line is written out as bytes as soon as it is formatted, and the bytes are compressed a chunk at a time: preparing a result of
 * tens of thousands of series holds no line, no list of lines and no joined text, so nothing but the compressed bytes lives long enough
 * to be promoted to the old generation of the collection thread's heap.
 */
import { isMainThread } from 'node:worker_threads';
import { constants, deflateRawSync } from 'node:zlib';
import { Deflate } from 'fflate';
import type { HistogramSample, Labels, Sample } from '../collectors/types';
import { metricFamily, type MetricFamily } from '../metrics/catalog';
import type { ReadyResult } from '../snapshot/store';
import { formatHistogram, formatLabels, formatValue } from './format';
import { fnv1aUtf16 } from '../util/fnv1a';
import { joinMembers, joinableMember } from './gzip-join';

/**
 * Bytes as one joinable gzip member (gzip-join.ts), at level 1: 2 MB instead of 20 MB a scrape, at the least CPU. A scrape sends its
 * members joined into one: browsers, curl and wget read only the first member of a body. fflate in the collection thread, which is ended
 * at any instruction: ending a thread inside a node:zlib handle's construction aborts the process (docs/performance.md); node:zlib's
 * crc32 makes no handle. The main thread keeps node:zlib's deflate, faster.
 */
export function gzipMember(bytes: Uint8Array): Buffer {
  if (isMainThread) return joinableMember([deflateRawSync(bytes, { level: 1, finishFlush: constants.Z_SYNC_FLUSH })], bytes);
  const deflated: Uint8Array[] = [];
  const deflate = new Deflate({ level: 1 }, (chunk) => void deflated.push(chunk.slice()));
  deflate.push(bytes, false);
  deflate.flush(false);
  deflated.push(emptyStoredBlock(deflate));
  return joinableMember(deflated, bytes);
}

/**
 * The sync flush's empty stored block after fflate's flush(false), from the bits it left pending. fflate 0.8.3's own flush(true) writes
 * that block at a wrong bit position whenever the pending byte is not zero (an undecodable member); its state keeps the pending byte above
 * the 3 bits of the position.
 */
function emptyStoredBlock(deflate: Deflate): Uint8Array {
  const pending = (deflate as unknown as { s?: { r?: unknown } }).s?.r;
  if (typeof pending !== 'number') throw new Error('fflate no longer keeps its pending bits where gzipMember reads them');
  const position = pending & 7;
  const byte = pending >> 3;
  // 3 header bits of zero (not final, stored), padding to the byte boundary, then LEN 0 and NLEN 0xffff
  if (position === 0) return Uint8Array.of(0, 0, 0, 0xff, 0xff);
  return position <= 5 ? Uint8Array.of(byte, 0, 0, 0xff, 0xff) : Uint8Array.of(byte, 0, 0, 0, 0xff, 0xff);
}

/** A family's first chunk of text; each next one is twice as large, up to LARGEST_CHUNK, so small families stay small. */
const FIRST_CHUNK = 16 * 1024;
/** Members of 512 KB compress within 1 % of one member per family, and bound the plain text held at once. */
const LARGEST_CHUNK = 512 * 1024;

/** One family's lines, written as UTF-8 into a chunk that becomes a gzip member when full. */
class FamilyText {
  readonly members: Buffer[] = [];
  private chunk = Buffer.allocUnsafe(FIRST_CHUNK);
  private used = 0;

  write(line: string): void {
    const room = line.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (this.used + room > this.chunk.length) {
      this.flush();
      this.chunk = Buffer.allocUnsafe(Math.max(room, Math.min(this.chunk.length * 2, LARGEST_CHUNK)));
    }
    this.used += this.chunk.write(line, this.used);
  }

  flush(): void {
    if (this.used > 0) this.members.push(gzipMember(this.chunk.subarray(0, this.used)));
    this.used = 0;
  }
}

/** Lines gathered by family, in order of the families' first line, compressed as they come (see FamilyText). */
export class ResultWriter {
  private readonly families = new Map<string, FamilyText>();
  private series = 0;

  /** A series' line (or a histogram's lines), counted as one series. */
  line(family: string, text: string): void {
    let writer = this.families.get(family);
    if (!writer) this.families.set(family, (writer = new FamilyText()));
    writer.write(text);
    this.series += 1;
  }

  finish(): ReadyResult {
    const texts = [...this.families];
    // Each family's members joined into one, so that a scrape joins whole families without looking into them.
    const joined = texts.map(([family, text]): [string, Buffer[]] => {
      text.flush();
      return [family, joinMembers(text.members)];
    });
    // A buffer of its own (not a slice of Node's shared pool): it is transferred whole to the serving thread.
    const bytes = new Uint8Array(new ArrayBuffer(joined.reduce((sum, [, pieces]) => pieces.reduce((n, m) => n + m.length, sum), 0)));
    let offset = 0;
    const families = joined.map(([family, pieces]): [string, number, number] => {
      const start = offset;
      for (const member of pieces) {
        bytes.set(member, offset);
        offset += member.length;
      }
      return [family, start, offset];
    });
    return { bytes, families, series: this.series };
  }
}

/**
 * The catalog family of a series, once the series is shown to be what that family allows; otherwise it throws, so that a collector bug
 * fails its run (dataprotect_collector_success) instead of serving wrong series. With `target`, a target label must name it.
 */
function checkedFamily(name: string, labels: Labels, histogram: boolean, target: string | undefined): MetricFamily {
  const family = metricFamily(name);
  if ((family.type === 'histogram') !== histogram) {
    throw new Error(`${name} is a ${family.type}, returned as ${histogram ? 'a histogram' : 'a sample'}`);
  }
  let count = 0;
  for (const _label in labels) count += 1;
  if (count !== family.labels.length || !family.labels.every((label) => typeof labels[label] === 'string')) {
    throw new Error(`${name} needs labels [${family.labels.join(', ')}], got [${Object.keys(labels).join(', ')}]`);
  }
  if (target !== undefined && labels.target !== undefined && labels.target !== target) {
    throw new Error(`${name} has target="${labels.target}", expected "${target}"`);
  }
  return family;
}

/**
 * A result checked against the catalog and prepared to be served, its labels in catalog order. A series the catalog does not allow, a
 * duplicate series (the same name and label values twice) or a non-finite value throws. `target`: the target every series belongs to.
 */
export function prepareResult(
  result: { samples: readonly Sample[]; histograms?: readonly HistogramSample[] },
  target?: string,
): ReadyResult {
  const { samples, histograms = [] } = result;
  const seriesText = ({ name, labels }: Sample | HistogramSample, family = metricFamily(name)): string =>
    name + formatLabels(labels, family.labels);
  // A duplicate is found by a hash of each series' text, then compared with the earlier texts of that hash, formatted again. A set of
  // the texts would keep a string per series alive to the end: promoted to the old generation, they cost twice the formatting itself.
  const latestByHash = new Map<number, number>();
  const earlierOfHash = new Int32Array(samples.length + histograms.length);
  const unique = (at: number, text: string): string => {
    const hash = fnv1aUtf16(text);
    const latest = latestByHash.get(hash) ?? -1;
    for (let earlier = latest; earlier >= 0; earlier = earlierOfHash[earlier] as number) {
      const series = earlier < samples.length ? samples[earlier] : histograms[earlier - samples.length];
      if (seriesText(series as Sample | HistogramSample) === text) throw new Error(`duplicate series ${text}`);
    }
    earlierOfHash[at] = latest;
    latestByHash.set(hash, at);
    return text;
  };
  const writer = new ResultWriter();
  samples.forEach((sample, at) => {
    const family = checkedFamily(sample.name, sample.labels, false, target);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    writer.line(sample.name, `${unique(at, seriesText(sample, family))} ${formatValue(sample.value)}\n`);
  });
  histograms.forEach((histogram, at) => {
    const { name, bounds, bucketCounts } = histogram;
    const family = checkedFamily(name, histogram.labels, true, target);
    if (bounds.length !== bucketCounts.length) throw new Error(`${name} has ${bounds.length} bounds, ${bucketCounts.length} bucket counts`);
    unique(samples.length + at, seriesText(histogram, family));
    writer.line(name, formatHistogram(histogram, family.labels));
  });
  return writer.finish();
}

export function familyMember(result: ReadyResult, family: string): Buffer | undefined {
  const entry = result.families.find(([name]) => name === family);
  return entry ? Buffer.from(result.bytes.buffer, result.bytes.byteOffset + entry[1], entry[2] - entry[1]) : undefined;
}
