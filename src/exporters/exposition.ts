/**
 * The Prometheus text exposition (format 0.0.4) of the snapshot store. Each
 * collector result is immutable, so its series are formatted, encoded and
 * compressed once (prepared.ts) and a scrape only concatenates buffers:
 * scrapes stay fast on large estates and never wait for a collection.
 */
import { gzipSync } from 'node:zlib';
import { GZIP_OPTIONS, preparedOf } from './prepared';
import { formatSample } from './format';
import { METRIC_FAMILIES, type MetricFamily } from '../metrics/catalog';
import type { Sample } from '../collectors/types';
import type { CollectorRecord } from '../snapshot/store';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export { escapeLabelValue, formatSample, formatHistogram } from './format';

export function familyHeader(family: MetricFamily): string {
  const help = family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# HELP ${family.name} ${help}\n# TYPE ${family.name} ${family.type}\n`;
}

export type BodyEncoding = 'identity' | 'gzip';

/** Text as one chunk of a body in the given encoding. */
export function encodeChunk(text: string, encoding: BodyEncoding): Buffer {
  const plain = Buffer.from(text, 'utf8');
  return encoding === 'gzip' ? gzipSync(plain, GZIP_OPTIONS) : plain;
}

/** Each family's header in each encoding, encoded once: a gzip scraper's header is a gzip member too. */
const encodedHeaders = new Map<string, Buffer>();

function encodedHeader(family: MetricFamily, encoding: BodyEncoding): Buffer {
  const key = `${encoding} ${family.name}`;
  let header = encodedHeaders.get(key);
  if (!header) encodedHeaders.set(key, (header = encodeChunk(familyHeader(family), encoding)));
  return header;
}

/**
 * The last moment (ms) a record's last good data is served. A failing
 * collector's: staleAfter past its last success. A collector whose last run
 * succeeded keeps its series until its next run, and staleAfter beyond if
 * that run does not come: otherwise a collector that keeps succeeding loses
 * its series between two runs whenever its schedule is as long as staleAfter
 * or longer (a run ending a little later than the one before leaves a gap).
 */
function servedUntil(record: CollectorRecord, staleAfterMs: number): number {
  if (record.lastSuccessAt === undefined) return -Infinity;
  const untilNextRun = record.lastRunSucceeded ? record.scheduleIntervalSeconds * 1000 : 0;
  return record.lastSuccessAt + untilNextRun + staleAfterMs;
}

/** Whether a record's last good data is still served (see servedUntil). */
export function isFresh(record: CollectorRecord, now: number, staleAfterMs: number): boolean {
  return now <= servedUntil(record, staleAfterMs);
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
    for (const [reason, value] of Object.entries(record.skippedItems)) {
      samples.push({ name: 'dataprotect_collector_skipped_items_total', labels: { ...labels, reason }, value });
    }
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

/**
 * Every catalog family that has series, in catalog order, as a list of UTF-8
 * buffers, or of gzip members whose concatenation is the gzip of those bytes.
 * The records' series are encoded (and compressed) once per result (see
 * prepared.ts): assembling a body only collects references. The results
 * the daemon's jobs store are prepared already; others (--once, tests) are
 * prepared here first.
 */
export async function renderRecordChunks(records: readonly CollectorRecord[], options: RenderOptions, encoding: BodyEncoding = 'identity'): Promise<Buffer[]> {
  const fresh = records.filter((record) => isFresh(record, options.now, options.staleAfterMs));
  const status = new Map<string, string>();
  for (const sample of statusSamples(records)) status.set(sample.name, (status.get(sample.name) ?? '') + formatSample(sample.name, sample.labels, sample.value));
  const freshData = fresh.map((record) => preparedOf(record));
  await Promise.all(freshData.map((data) => data.prepare()));
  const out: Buffer[] = [];
  for (const family of METRIC_FAMILIES) {
    const statusText = status.get(family.name);
    const parts: Buffer[] = statusText ? [encodeChunk(statusText, encoding)] : [];
    for (const data of freshData) {
      for (const chunk of data.chunks(family.name, encoding)) if (chunk.length > 0) parts.push(chunk);
    }
    if (parts.length > 0) out.push(encodedHeader(family, encoding), ...parts);
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
