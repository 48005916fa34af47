/** An OTLP export queue that never waits and exports one batch at a time: a slow endpoint makes it drop, not pile up requests or memory. */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { settlesWithin } from '../util/settles-within';

/** The part of an OTLP span or log exporter this queue uses. */
export interface BatchExporter<T> {
  export(items: T[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

export interface BoundedExportOptions {
  maxQueueSize: number;
  maxBatchSize: number;
  /** how long an incomplete batch waits for more */
  scheduleDelayMs: number;
  /** called with the number of items lost (queue full, export failed) */
  onDropped(count: number): void;
  /** called with the reason of a failed export (never the payload: it holds estate data) */
  onExportError(message: string): void;
  /** called whenever `outstanding` may have changed */
  onChange?(): void;
}

export class BoundedExportQueue<T> {
  private queue: T[] = [];
  private exporting: Promise<void> | undefined;
  /** items of the batch being exported */
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly exporter: BatchExporter<T>,
    private readonly options: BoundedExportOptions,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  /** items taken and neither exported nor counted dropped yet */
  get outstanding(): number {
    return this.queue.length + this.inFlight;
  }

  add(items: readonly T[]): void {
    if (this.stopped || items.length === 0) return;
    const room = this.options.maxQueueSize - this.queue.length;
    const taken = items.length <= room ? items : items.slice(0, Math.max(0, room));
    for (const item of taken) this.queue.push(item);
    if (taken.length < items.length) this.options.onDropped(items.length - taken.length);
    this.schedule();
    this.options.onChange?.();
  }

  /** Exports what is queued (for shutdown and tests); resolves when the queue is empty or its exports failed. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.exporting) {
      if (this.exporting) await this.exporting;
      else this.exportNext();
    }
  }

  /** Exports what is queued within `timeoutMs`, then stops the exporter; what is left is discarded and counted. */
  async shutdown(timeoutMs: number): Promise<void> {
    await settlesWithin(this.flush(), timeoutMs);
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.queue.length > 0) this.options.onDropped(this.queue.length);
    this.queue = [];
    this.options.onChange?.();
    await this.exporter.shutdown().catch(() => undefined);
  }

  private schedule(): void {
    if (this.exporting || this.queue.length === 0) return;
    if (this.queue.length >= this.options.maxBatchSize) return this.exportNext();
    // A timer that does not keep the process alive: the shutdown flushes.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.exportNext();
    }, this.options.scheduleDelayMs).unref();
  }

  private exportNext(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.exporting || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatchSize);
    this.inFlight = batch.length;
    this.exporting = new Promise<void>((resolve) => {
      try {
        this.exporter.export(batch, (result) => {
          if (result.code !== ExportResultCode.SUCCESS) {
            this.options.onDropped(batch.length);
            this.options.onExportError(result.error?.message ?? 'export failed');
          }
          resolve();
        });
      } catch (error) {
        this.options.onDropped(batch.length);
        this.options.onExportError((error as Error).message);
        resolve();
      }
    }).finally(() => {
      this.exporting = undefined;
      this.inFlight = 0;
      if (!this.stopped) this.schedule();
      this.options.onChange?.();
    });
  }
}
