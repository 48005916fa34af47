/**
 * A collector result ready to be served: its series text per family, UTF-8
 * encoded, and the same as gzip members. A result (the samples and
 * histograms of one successful run) is immutable and shared by every record
 * the store derives from it (run started, run failed), so it is formatted
 * once per result, not once per record or per scrape; a scrape only collects
 * references to these buffers.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { HistogramSample, Sample } from '../collectors/types';
import type { CollectorRecord } from '../snapshot/store';
import { formatHistogram, formatSample } from './format';
import { ITEMS_PER_TURN } from '../util/turns';
import type { BodyEncoding } from './exposition';

/**
 * Level 1: the point is to send 2 MB instead of 20 MB per scrape, at the
 * least CPU. Each buffer is its own gzip member; a body is a concatenation of
 * members, which is a valid gzip stream (RFC 1952; Go's and Node's readers
 * read every member).
 */
export const GZIP_OPTIONS = { level: 1 } as const;

const gzipAsync = promisify(gzip);

/**
 * Exposition lines formatted in one turn of the event loop, counted across
 * the families of a result, as many as forEachInTurns handles items. A
 * 10,000-asset estate's results hold 120,000 series: formatted in one go
 * they hold the loop for 100-400 ms, and a scrape that arrives meanwhile
 * waits that long (the HA pair's p99 in `npm run bench`).
 */
const LINES_PER_TURN = ITEMS_PER_TURN;

interface FamilySeries {
  readonly samples: Sample[];
  readonly histograms: HistogramSample[];
}

/** One family's series as UTF-8 slices and the same slices as gzip members. */
interface PreparedFamily {
  readonly text: Buffer[];
  readonly gzip: Buffer[];
}

/**
 * A result's series per family name, prepared once: by its collector job
 * before the store takes it (prepareForServing), else by the first scrape
 * that serves it (--once, tests). Formatted a slice per turn of the event
 * loop and compressed on libuv's threads, so that preparing a large result
 * never holds a scrape (or a collector) for long.
 */
export class PreparedResult {
  private readonly families = new Map<string, PreparedFamily>();
  private preparing: Promise<void> | undefined;

  constructor(private readonly series: ReadonlyMap<string, FamilySeries>) {}

  /** Resolves when every family is formatted and compressed (started by the first call; a failed one is tried again by the next). */
  prepare(): Promise<void> {
    this.preparing ??= this.prepareAll().catch((error: unknown) => {
      this.preparing = undefined;
      throw error;
    });
    return this.preparing;
  }

  /** One family's series as UTF-8 text or as gzip members; empty when the result has none. Only after prepare() resolved. */
  chunks(family: string, encoding: BodyEncoding): readonly Buffer[] {
    if (this.families.size < this.series.size) throw new Error('the result is not prepared yet: await prepare() first');
    const prepared = this.families.get(family);
    if (prepared === undefined) return [];
    return encoding === 'gzip' ? prepared.gzip : prepared.text;
  }

  /** Each family as slices of text, each slice gzipped on libuv's threads while the next is formatted. */
  private async prepareAll(): Promise<void> {
    let linesThisTurn = 0;
    for (const [family, series] of this.series) {
      const text: Buffer[] = [];
      const compressing: Array<Promise<Buffer>> = [];
      let lines: string[] = [];
      const cut = (): void => {
        const slice = Buffer.from(lines.join(''), 'utf8');
        const compressed = gzipAsync(slice, GZIP_OPTIONS);
        // awaited with the family's other slices below; until then a failure is no unhandled rejection
        compressed.catch(() => undefined);
        text.push(slice);
        compressing.push(compressed);
        lines = [];
      };
      for (const [line, lineCount] of formattedLines(series)) {
        lines.push(line);
        linesThisTurn += lineCount;
        if (linesThisTurn >= LINES_PER_TURN) {
          cut();
          linesThisTurn = 0;
          await nextTurn();
        }
      }
      if (lines.length > 0) cut();
      this.families.set(family, { text, gzip: await Promise.all(compressing) });
    }
  }
}

/** A family's exposition text, a series (or a histogram's lines) at a time, with its number of lines. */
function* formattedLines(series: FamilySeries): Generator<[string, number]> {
  for (const sample of series.samples) yield [formatSample(sample.name, sample.labels, sample.value), 1];
  for (const histogram of series.histograms) yield [formatHistogram(histogram), histogram.bounds.length + 3];
}

/** A result: the series of one successful run, as the store keeps them. */
type Result = Pick<CollectorRecord, 'samples' | 'histograms'>;

const prepared = new WeakMap<readonly Sample[], { histograms: readonly HistogramSample[]; result: PreparedResult }>();

/** The prepared form of a result (its series grouped by family the first time it is asked for). */
export function preparedOf(result: Result): PreparedResult {
  const entry = prepared.get(result.samples);
  if (entry && entry.histograms === result.histograms) return entry.result;
  const preparedResult = new PreparedResult(byFamily(result.samples, result.histograms));
  prepared.set(result.samples, { histograms: result.histograms, result: preparedResult });
  return preparedResult;
}

/**
 * Prepares a checked result before it is stored (the collector job's
 * prepareResult): the store then only ever holds results ready to serve, and
 * a scrape neither formats nor waits for a preparation, while the rounds
 * that replace results all the time have their formatting and compression
 * done a slice at a time beside the scrapes.
 */
export function prepareForServing(result: Result): Promise<void> {
  return preparedOf(result).prepare();
}

function byFamily(samples: readonly Sample[], histograms: readonly HistogramSample[]): Map<string, FamilySeries> {
  const families = new Map<string, FamilySeries>();
  const of = (family: string): FamilySeries => {
    let series = families.get(family);
    if (!series) {
      series = { samples: [], histograms: [] };
      families.set(family, series);
    }
    return series;
  };
  for (const sample of samples) of(sample.name).samples.push(sample);
  for (const histogram of histograms) of(histogram.name).histograms.push(histogram);
  return families;
}
