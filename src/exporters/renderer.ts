import type { SnapshotStore } from '../snapshot/store';
import { gunzipSync } from 'node:zlib';
import { familyChunks, renderRecordChunks } from './exposition';
import { gzipMember } from './prepared';
import type { SelfMetrics } from './self-metrics';

/**
 * Renders /metrics and /probe. The snapshot part is read from the store in
 * one synchronous step, so a scrape sees one consistent view (each record's
 * latest complete result) and never waits for a collection; each result
 * arrives compressed (prepared.ts), so a scrape mostly assembles buffers.
 * Only the small status and self-metrics are formatted per scrape.
 */
export class MetricsRenderer {
  constructor(
    private readonly store: () => SnapshotStore,
    private readonly self: SelfMetrics,
    private readonly staleAfterMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Everything as text, or one target's series when `target` is given (--once, tests; the endpoints send renderChunks). */
  async render(target?: string): Promise<string> {
    return gunzipSync(Buffer.concat(await this.renderChunks(target))).toString('utf8');
  }

  /** render() as gzip members whose concatenation is the gzip of its text. */
  async renderChunks(target?: string): Promise<Buffer[]> {
    const all = this.store().all();
    const records = target === undefined ? all : all.filter((record) => record.target === target);
    const snapshot = renderRecordChunks(records, { now: this.now(), staleAfterMs: this.staleAfterMs() });
    const self = familyChunks([await this.self.prepared(target)]);
    return target === undefined ? [...snapshot, ...self, gzipMember(await this.self.processText())] : [...snapshot, ...self];
  }
}
