/**
 * The bounded queue between collection and the OTLP exporters: adding never
 * waits, one export at a time, and everything not delivered (queue full,
 * export failed, left at shutdown) is counted once.
 */
import type { ExportResult } from '@opentelemetry/core';
import { BoundedExportQueue, type BatchExporter } from '../../src/otlp/bounded-export';

/** an exporter whose exports finish when the test says so */
class HeldExporter implements BatchExporter<number> {
  readonly batches: number[][] = [];
  private readonly answers: Array<(result: ExportResult) => void> = [];
  shutdowns = 0;

  export(items: number[], done: (result: ExportResult) => void): void {
    this.batches.push(items);
    this.answers.push(done);
  }

  answer(code: number): void {
    this.answers.shift()?.({ code, ...(code === 0 ? {} : { error: new Error('503 Service Unavailable') }) });
  }

  async shutdown(): Promise<void> {
    this.shutdowns += 1;
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function queueWith(exporter: HeldExporter, maxQueueSize: number) {
  const counts = { dropped: 0, errors: [] as string[] };
  const queue = new BoundedExportQueue(exporter, {
    maxQueueSize,
    maxBatchSize: 2,
    scheduleDelayMs: 60_000,
    onDropped: (count) => (counts.dropped += count),
    onExportError: (message) => counts.errors.push(message),
  });
  return { queue, counts };
}

describe('BoundedExportQueue', () => {
  it('exports full batches one at a time and drops, counted, what does not fit while an export hangs', async () => {
    const exporter = new HeldExporter();
    const { queue, counts } = queueWith(exporter, 4);
    queue.add([1, 2, 3]);
    expect(exporter.batches).toEqual([[1, 2]]); // a full batch goes at once
    queue.add([4, 5, 6, 7]); // [3] queued, room for 3 more of 4
    expect(exporter.batches).toHaveLength(1); // the first export is still unanswered
    expect(queue.size).toBe(4);
    expect(counts.dropped).toBe(1);
    exporter.answer(0);
    await settle();
    expect(exporter.batches).toEqual([[1, 2], [3, 4]]);
    exporter.answer(1); // the endpoint failed: the batch is lost and counted
    await settle();
    expect(counts.dropped).toBe(3);
    expect(counts.errors).toEqual(['503 Service Unavailable']);
    expect(exporter.batches).toEqual([[1, 2], [3, 4], [5, 6]]);
  });

  it('a partial batch waits for the delay; shutdown counts what it could not send and stops the exporter', async () => {
    jest.useFakeTimers();
    try {
      const exporter = new HeldExporter();
      const { queue, counts } = queueWith(exporter, 10);
      queue.add([1]);
      expect(exporter.batches).toHaveLength(0);
      jest.advanceTimersByTime(60_000);
      expect(exporter.batches).toEqual([[1]]);
      queue.add([2, 3, 4]); // waits behind the unanswered export
      const stopping = queue.shutdown(5_000);
      jest.advanceTimersByTime(5_000);
      await stopping;
      expect(counts.dropped).toBe(3);
      expect(exporter.shutdowns).toBe(1);
      queue.add([5]); // after shutdown: ignored
      expect(queue.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
