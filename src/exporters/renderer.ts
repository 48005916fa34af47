import type { SnapshotStore } from '../snapshot/store';
import { encodeChunk, renderFamilies, renderRecordChunks, renderRecords, type BodyEncoding } from './exposition';
import type { SelfMetrics } from './self-metrics';

/**
 * Renders /metrics and /probe. The snapshot part is read from the store in
 * one synchronous step, so a scrape sees one consistent view (each record's
 * latest complete result) and never waits for a collection; each result's
 * series are formatted once (prepared.ts), so a scrape mostly assembles
 * buffers. Only the small status and self-metrics are formatted per scrape.
 */
export class MetricsRenderer {
  constructor(
    private readonly store: () => SnapshotStore,
    private readonly self: SelfMetrics,
    private readonly staleAfterMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Everything, or one target's series when `target` is given (the multi-target /probe convention). */
  async render(target?: string): Promise<string> {
    const all = this.store().all();
    const records = target === undefined ? all : all.filter((record) => record.target === target);
    const snapshot = renderRecords(records, this.renderOptions());
    const self = renderFamilies(await this.self.familiesText(target));
    return target === undefined ? snapshot + self + (await this.self.processText()) : snapshot + self;
  }

  /**
   * The /metrics body as UTF-8 buffers (same bytes as render()), or as gzip
   * members whose concatenation is the gzip of those bytes.
   */
  async renderChunks(encoding: BodyEncoding = 'identity'): Promise<Buffer[]> {
    const snapshot = renderRecordChunks(this.store().all(), this.renderOptions(), encoding);
    const self = renderFamilies(await this.self.familiesText()) + (await this.self.processText());
    return [...snapshot, encodeChunk(self, encoding)];
  }

  private renderOptions(): { now: number; staleAfterMs: number } {
    return { now: this.now(), staleAfterMs: this.staleAfterMs() };
  }
}
