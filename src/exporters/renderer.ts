import type { CollectorRecord, SnapshotStore } from '../snapshot/store';
import { isLarge, prepareInBackground, prepareNow, preparedOf, type PreparedResult } from './prepared';
import { encodeChunk, nextExpiry, renderFamilies, renderRecordChunks, renderRecords, type BodyEncoding } from './exposition';
import type { SelfMetrics } from './prometheus';

interface CachedText {
  version: number;
  validUntil: number;
  text: string;
}

/**
 * Renders /metrics and /probe. The snapshot part is cached until the store
 * changes or a record turns stale; only the small live self-metrics are
 * formatted on every scrape, so concurrent scrapes cost little and never wait
 * for a collection.
 */
export class MetricsRenderer {
  private readonly cache = new Map<string, CachedText>();

  constructor(
    private readonly store: () => SnapshotStore,
    private readonly self: SelfMetrics,
    private readonly staleAfterMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Everything, or one target's series when `target` is given (the multi-target /probe convention). */
  async render(target?: string): Promise<string> {
    // Read the snapshot first and synchronously: it is one consistent view.
    const snapshot = this.snapshotText(target);
    const self = renderFamilies(await this.self.familiesText(target));
    return target === undefined ? snapshot + self + (await this.self.processText()) : snapshot + self;
  }

  /**
   * The /metrics body as UTF-8 buffers (same bytes as render()), or as gzip
   * members whose concatenation is the gzip of those bytes. The snapshot
   * part is cached as buffers until the store changes or a record turns
   * stale, and its records' series are encoded once per record: concurrent
   * scrapes of a large estate share the buffers instead of each encoding and
   * copying the whole text.
   */
  async renderChunks(encoding: BodyEncoding = 'identity'): Promise<Buffer[]> {
    await this.firstPreparations();
    const snapshot = this.snapshotChunks(encoding);
    return [...snapshot, await this.selfChunk(encoding)];
  }

  /**
   * A large record that was never served has no previous version to serve
   * while its result is prepared: the scrape waits for the background
   * preparation (sliced, gzip on the thread pool) instead of preparing it on
   * this thread in one piece, which held the event loop, and every other
   * scrape and probe, for most of a second at the first scrape of a large
   * estate. Records that arrive meanwhile are looked at again (a few times:
   * a last newcomer is prepared at once by snapshotChunks).
   */
  private async firstPreparations(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const unserved = this.store()
        .all()
        .filter((record) => isLarge(record) && !preparedOf(record) && !this.served.has(recordKey(record)));
      if (unserved.length === 0) return;
      // A failed preparation is left to snapshotChunks, which prepares on this thread.
      await Promise.allSettled(unserved.map((record) => prepareInBackground(record)));
      this.preparedGeneration++;
    }
  }

  private readonly selfCache = new Map<BodyEncoding, { changes: number; processText: Promise<string>; chunk: Promise<Buffer> }>();

  /**
   * The self-metrics part of /metrics, encoded: rendered again only when the
   * API series changed or the process metrics were read again, and shared by
   * the scrapes in between (formatting and gzipping it on every one of many
   * concurrent scrapes was a large part of their cost).
   */
  private selfChunk(encoding: BodyEncoding): Promise<Buffer> {
    const changes = this.self.changes;
    const processText = this.self.processText();
    const cached = this.selfCache.get(encoding);
    if (cached && cached.changes === changes && cached.processText === processText) return cached.chunk;
    const chunk = (async () => encodeChunk(renderFamilies(await this.self.familiesText()) + (await processText), encoding))();
    const entry = { changes, processText, chunk };
    this.selfCache.set(encoding, entry);
    chunk.catch(() => {
      if (this.selfCache.get(encoding) === entry) this.selfCache.delete(encoding);
    });
    return chunk;
  }

  private readonly chunkCache = new Map<BodyEncoding, { version: number; preparedGeneration: number; validUntil: number; chunks: Buffer[] }>();
  /** the prepared result last served per record key: served again while a newer large result is prepared */
  private readonly served = new Map<string, PreparedResult>();
  /** increases when a background preparation completes: cached bodies then include it */
  private preparedGeneration = 0;
  private subscribedTo: SnapshotStore | undefined;

  private snapshotChunks(encoding: BodyEncoding): Buffer[] {
    const store = this.store();
    this.watch(store);
    const now = this.now();
    const cached = this.chunkCache.get(encoding);
    if (cached && cached.version === store.version && cached.preparedGeneration === this.preparedGeneration && now < cached.validUntil) return cached.chunks;
    const records = store.all();
    const staleAfterMs = this.staleAfterMs();
    const rendered = {
      version: store.version,
      preparedGeneration: this.preparedGeneration,
      validUntil: nextExpiry(records, now, staleAfterMs),
      chunks: renderRecordChunks(records, { now, staleAfterMs }, encoding, (record) => this.preparedToServe(record)),
    };
    this.chunkCache.set(encoding, rendered);
    const live = new Set(records.map(recordKey));
    for (const key of this.served.keys()) if (!live.has(key)) this.served.delete(key);
    return rendered.chunks;
  }

  /**
   * The version of a record's result a scrape serves: the current one when it
   * is ready (or small enough to prepare at once); while a large new result is
   * prepared in the background, the previous complete one. A scrape sees one
   * whole version of each record, never a mix.
   */
  private preparedToServe(record: CollectorRecord): PreparedResult {
    const key = recordKey(record);
    const previous = this.served.get(key);
    let current = preparedOf(record);
    if (!current && previous && isLarge(record)) {
      this.prepare(record);
      return previous;
    }
    current ??= prepareNow(record);
    this.served.set(key, current);
    return current;
  }

  /** Large results start their preparation as soon as the store has them, not at the next scrape. */
  private watch(store: SnapshotStore): void {
    if (this.subscribedTo === store) return;
    this.subscribedTo = store;
    store.onResult((record) => {
      if (this.subscribedTo === store && isLarge(record) && this.served.has(recordKey(record))) this.prepare(record);
    });
  }

  private prepare(record: CollectorRecord): void {
    prepareInBackground(record).then(
      () => {
        this.preparedGeneration++;
      },
      // Cannot happen with validated series; should it, prepare on this thread rather than serve the old version for ever.
      () => {
        prepareNow(record);
        this.preparedGeneration++;
      },
    );
  }

  private snapshotText(target: string | undefined): string {
    const key = target ?? '';
    const store = this.store();
    const now = this.now();
    const cached = this.cache.get(key);
    if (cached && cached.version === store.version && now < cached.validUntil) return cached.text;
    const records = target === undefined ? store.all() : store.all().filter((record) => record.target === target);
    const staleAfterMs = this.staleAfterMs();
    const rendered = {
      version: store.version,
      validUntil: nextExpiry(records, now, staleAfterMs),
      text: renderRecords(records, { now, staleAfterMs }),
    };
    this.cache.set(key, rendered);
    return rendered.text;
  }
}

function recordKey(record: CollectorRecord): string {
  return `${record.target}\u0000${record.collector}`;
}
