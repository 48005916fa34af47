import type { SnapshotStore } from '../snapshot/store';
import { encodeChunk, renderFamilies, renderRecordChunks, type BodyEncoding } from './exposition';
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

  /** Everything as text, or one target's series when `target` is given (the multi-target /probe convention). */
  async render(target?: string): Promise<string> {
    return Buffer.concat(await this.renderChunks('identity', target)).toString('utf8');
  }

  /** render() as UTF-8 buffers (/metrics), or as gzip members whose concatenation is the gzip of those bytes. */
  async renderChunks(encoding: BodyEncoding = 'identity', target?: string): Promise<Buffer[]> {
    const all = this.store().all();
    const records = target === undefined ? all : all.filter((record) => record.target === target);
    const snapshot = await renderRecordChunks(records, { now: this.now(), staleAfterMs: this.staleAfterMs() }, encoding);
    const families = renderFamilies(await this.self.familiesText(target));
    const self = target === undefined ? families + (await this.self.processText()) : families;
    return [...snapshot, encodeChunk(self, encoding)];
  }
}
