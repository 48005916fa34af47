/**
 * The Prometheus text exposition (format 0.0.4) of the snapshot store. Each
 * record is immutable, so its series are formatted once (cached per record)
 * and a scrape only concatenates: scrapes stay fast on large estates and
 * never wait for a collection.
 */
import { gzipSync } from 'node:zlib';
import { METRIC_FAMILIES, type MetricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';
import type { CollectorRecord } from '../snapshot/store';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

export function formatLabels(labels: Labels, extra?: [string, string]): string {
  const parts: string[] = [];
  for (const key in labels) parts.push(`${key}="${escapeLabelValue(labels[key] as string)}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

export function formatSample(name: string, labels: Labels, value: number): string {
  return `${name}${formatLabels(labels)} ${formatValue(value)}\n`;
}

export function formatHistogram(sample: HistogramSample): string {
  let out = '';
  sample.bounds.forEach((bound, index) => {
    out += `${sample.name}_bucket${formatLabels(sample.labels, ['le', formatValue(bound)])} ${sample.bucketCounts[index] ?? 0}\n`;
  });
  out += `${sample.name}_bucket${formatLabels(sample.labels, ['le', '+Inf'])} ${sample.count}\n`;
  out += `${sample.name}_sum${formatLabels(sample.labels)} ${formatValue(sample.sum)}\n`;
  out += `${sample.name}_count${formatLabels(sample.labels)} ${sample.count}\n`;
  return out;
}

export function familyHeader(family: MetricFamily): string {
  const help = family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# HELP ${family.name} ${help}\n# TYPE ${family.name} ${family.type}\n`;
}

/** Series text of one record, per family name, computed once per (immutable) record. */
const formattedData = new WeakMap<CollectorRecord, Map<string, string>>();

function dataOf(record: CollectorRecord): Map<string, string> {
  let byFamily = formattedData.get(record);
  if (!byFamily) {
    byFamily = formatRecord(record);
    formattedData.set(record, byFamily);
  }
  return byFamily;
}

/**
 * The same per-family series text, UTF-8 encoded once per record. /metrics
 * writes these buffers as they are: a scrape of a large estate then copies
 * nothing and encodes nothing (encoding a 20 MB body on every scrape made
 * concurrent scrapes take seconds and hold hundreds of MB).
 */
const encodedData = new WeakMap<CollectorRecord, Map<string, Buffer>>();

function encodedDataOf(record: CollectorRecord): Map<string, Buffer> {
  let byFamily = encodedData.get(record);
  if (!byFamily) {
    byFamily = new Map();
    // Reuse the text when /probe or a test already formatted this record; otherwise format without keeping the text.
    const text = formattedData.get(record) ?? formatRecord(record);
    for (const [family, body] of text) byFamily.set(family, Buffer.from(body, 'utf8'));
    encodedData.set(record, byFamily);
  }
  return byFamily;
}

function formatRecord(record: CollectorRecord): Map<string, string> {
  const byFamily = new Map<string, string>();
  for (const sample of record.samples) byFamily.set(sample.name, (byFamily.get(sample.name) ?? '') + formatSample(sample.name, sample.labels, sample.value));
  for (const sample of record.histograms) byFamily.set(sample.name, (byFamily.get(sample.name) ?? '') + formatHistogram(sample));
  return byFamily;
}

const encodedHeaders = new Map<string, Buffer>();

function encodedHeader(family: MetricFamily): Buffer {
  let header = encodedHeaders.get(family.name);
  if (!header) encodedHeaders.set(family.name, (header = Buffer.from(familyHeader(family), 'utf8')));
  return header;
}

/**
 * Compressed bodies for scrapers that accept gzip (Prometheus always does):
 * each buffer is its own gzip member, compressed once per record, and a body
 * is the concatenation of members, which is a valid gzip stream (RFC 1952;
 * Go's and Node's readers read every member). Level 1: the point is to send
 * 2 MB instead of 20 MB per scrape, at the least CPU.
 */
const GZIP_OPTIONS = { level: 1 } as const;
const gzippedData = new WeakMap<CollectorRecord, Map<string, Buffer>>();
const gzippedHeaders = new Map<string, Buffer>();

function gzippedDataOf(record: CollectorRecord): Map<string, Buffer> {
  let byFamily = gzippedData.get(record);
  if (!byFamily) {
    byFamily = new Map();
    for (const [family, body] of encodedDataOf(record)) byFamily.set(family, gzipSync(body, GZIP_OPTIONS));
    gzippedData.set(record, byFamily);
  }
  return byFamily;
}

function gzippedHeader(family: MetricFamily): Buffer {
  let header = gzippedHeaders.get(family.name);
  if (!header) gzippedHeaders.set(family.name, (header = gzipSync(encodedHeader(family), GZIP_OPTIONS)));
  return header;
}

export type BodyEncoding = 'identity' | 'gzip';

/** Text as one chunk of a body in the given encoding. */
export function encodeChunk(text: string, encoding: BodyEncoding): Buffer {
  const plain = Buffer.from(text, 'utf8');
  return encoding === 'gzip' ? gzipSync(plain, GZIP_OPTIONS) : plain;
}

/** Whether a record's last good data is still served: successful at least once, and not older than staleAfter. */
export function isFresh(record: CollectorRecord, now: number, staleAfterMs: number): boolean {
  return record.lastSuccessAt !== undefined && now - record.lastSuccessAt <= staleAfterMs;
}

/** The exporter's view of each collector and target, computed at scrape time from the records. */
function statusSamples(records: readonly CollectorRecord[]): Sample[] {
  const samples: Sample[] = [];
  const latestRunByTarget = new Map<string, CollectorRecord>();
  for (const record of records) {
    const labels = { target: record.target, collector: record.collector };
    samples.push({ name: 'dataprotect_collector_schedule_interval_seconds', labels, value: record.scheduleIntervalSeconds });
    samples.push({ name: 'dataprotect_collector_runs_total', labels, value: record.runs });
    samples.push({ name: 'dataprotect_collector_failures_total', labels, value: record.failures });
    samples.push({ name: 'dataprotect_collector_skipped_runs_total', labels, value: record.skippedRuns });
    if (record.lastRunEndAt === undefined) continue;
    samples.push({ name: 'dataprotect_collector_success', labels, value: record.lastRunSucceeded ? 1 : 0 });
    samples.push({ name: 'dataprotect_collector_duration_seconds', labels, value: record.lastDurationSeconds ?? 0 });
    if (record.lastSuccessAt !== undefined) {
      samples.push({ name: 'dataprotect_collector_last_success_timestamp_seconds', labels, value: record.lastSuccessAt / 1000 });
    }
    const latest = latestRunByTarget.get(record.target);
    if (!latest || (latest.lastRunEndAt ?? 0) < record.lastRunEndAt) latestRunByTarget.set(record.target, record);
  }
  // A target is up when its most recent run reached the API: a run that failed
  // on bad data still proves the source answered.
  for (const record of latestRunByTarget.values()) {
    samples.push({
      name: 'dataprotect_up',
      labels: { target: record.target, kind: record.kind },
      value: record.lastRunSucceeded || !record.lastRunUnreachable ? 1 : 0,
    });
  }
  return samples;
}

export interface RenderOptions {
  now: number;
  staleAfterMs: number;
}

/** Renders every catalog family that has series, in catalog order. */
export function renderRecords(records: readonly CollectorRecord[], options: RenderOptions): string {
  const fresh = records.filter((record) => isFresh(record, options.now, options.staleAfterMs));
  const status = new Map<string, string>();
  for (const sample of statusSamples(records)) status.set(sample.name, (status.get(sample.name) ?? '') + formatSample(sample.name, sample.labels, sample.value));
  const freshData = fresh.map(dataOf);
  let out = '';
  for (const family of METRIC_FAMILIES) {
    let body = status.get(family.name) ?? '';
    for (const data of freshData) body += data.get(family.name) ?? '';
    if (body) out += familyHeader(family) + body;
  }
  return out;
}

/**
 * renderRecords as a list of UTF-8 buffers (same bytes): the records' series
 * are encoded once per record, so assembling a body after any store change
 * only collects references.
 */
export function renderRecordChunks(records: readonly CollectorRecord[], options: RenderOptions, encoding: BodyEncoding = 'identity'): Buffer[] {
  const fresh = records.filter((record) => isFresh(record, options.now, options.staleAfterMs));
  const status = new Map<string, string>();
  for (const sample of statusSamples(records)) status.set(sample.name, (status.get(sample.name) ?? '') + formatSample(sample.name, sample.labels, sample.value));
  const gzip = encoding === 'gzip';
  const freshData = fresh.map(gzip ? gzippedDataOf : encodedDataOf);
  const out: Buffer[] = [];
  for (const family of METRIC_FAMILIES) {
    const statusText = status.get(family.name);
    const parts: Buffer[] = statusText ? [encodeChunk(statusText, encoding)] : [];
    for (const data of freshData) {
      const body = data.get(family.name);
      if (body && body.length > 0) parts.push(body);
    }
    if (parts.length > 0) out.push(gzip ? gzippedHeader(family) : encodedHeader(family), ...parts);
  }
  return out;
}

/** Families rendered elsewhere (by prom-client), each with its HELP and TYPE from the catalog. */
export function renderFamilies(bodies: ReadonlyMap<string, string>): string {
  let out = '';
  for (const family of METRIC_FAMILIES) {
    const body = bodies.get(family.name);
    if (body) out += familyHeader(family) + body;
  }
  return out;
}

/** The earliest time (ms) at which a currently fresh record turns stale: a cached rendering is valid until then. */
export function nextExpiry(records: readonly CollectorRecord[], now: number, staleAfterMs: number): number {
  let next = Infinity;
  for (const record of records) {
    if (isFresh(record, now, staleAfterMs)) next = Math.min(next, (record.lastSuccessAt as number) + staleAfterMs + 1);
  }
  return next;
}
