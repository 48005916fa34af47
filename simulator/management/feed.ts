import { HOUR_MS } from './catalog';

/**
 * Things that happen at a steady rate (activities, audit entries) are drawn
 * one whole hour ("slot") at a time from a random stream named after the slot,
 * and released as the clock passes their time. So the same seed gives the
 * same events however the clock is moved: one advance of a day or 1440
 * advances of a minute.
 */
export class HourlyFeed<T> {
  private pending: T[] = [];
  private head = 0;
  private nextSlot: number;

  constructor(
    firstMs: number,
    private readonly timeOf: (item: T) => number,
    /** the items of one slot, ascending by time, all within [slot * HOUR_MS, (slot + 1) * HOUR_MS) */
    private readonly generate: (slot: number) => T[],
  ) {
    this.nextSlot = Math.floor(firstMs / HOUR_MS);
  }

  /** items with time in (previous call's toMs, toMs], ascending */
  release(toMs: number): T[] {
    const lastSlot = Math.floor(toMs / HOUR_MS);
    while (this.nextSlot <= lastSlot) {
      const items = this.generate(this.nextSlot++);
      if (this.head > 0) {
        this.pending = this.pending.slice(this.head);
        this.head = 0;
      }
      for (const item of items) this.pending.push(item);
    }
    const out: T[] = [];
    while (this.head < this.pending.length && this.timeOf(this.pending[this.head] as T) <= toMs) {
      out.push(this.pending[this.head++] as T);
    }
    return out;
  }
}

/** n times spread uniformly over [startMs, startMs + spanMs), ascending, drawn from `next` */
export function sortedTimes(n: number, startMs: number, spanMs: number, next: () => number): number[] {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(startMs + Math.floor(next() * spanMs));
  return times.sort((a, b) => a - b);
}

/** how many events of a daily rate fall in one hour: the fraction is resolved by a draw, so the long-run rate is exact */
export function hourlyCount(perDay: number, next: () => number): number {
  const expected = perDay / 24;
  return Math.floor(expected + next());
}
