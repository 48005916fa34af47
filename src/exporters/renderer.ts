import type { SnapshotStore } from '../snapshot/store';
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
    const snapshot = this.snapshotChunks(encoding);
    const self = renderFamilies(await this.self.familiesText());
    return [...snapshot, encodeChunk(self + (await this.self.processText()), encoding)];
  }

  private readonly chunkCache = new Map<BodyEncoding, { version: number; validUntil: number; chunks: Buffer[] }>();

  private snapshotChunks(encoding: BodyEncoding): Buffer[] {
    const store = this.store();
    const now = this.now();
    const cached = this.chunkCache.get(encoding);
    if (cached && cached.version === store.version && now < cached.validUntil) return cached.chunks;
    const records = store.all();
    const staleAfterMs = this.staleAfterMs();
    const rendered = {
      version: store.version,
      validUntil: nextExpiry(records, now, staleAfterMs),
      chunks: renderRecordChunks(records, { now, staleAfterMs }, encoding),
    };
    this.chunkCache.set(encoding, rendered);
    return rendered.chunks;
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
