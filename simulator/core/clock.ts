import type { SimClock } from '../types';

export type AdvanceListener = (from: Date, to: Date) => void;

/**
 * The simulator's wall clock. It only moves when told to, so tests decide
 * exactly how much simulated time passes; the estates subscribe with
 * onAdvance() to evolve over the span that passed.
 */
export class SimulatedClock implements SimClock {
  private current: number;
  private readonly listeners: AdvanceListener[] = [];

  constructor(start: Date) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`clock.advance needs a finite, non-negative number of ms, got ${ms}`);
    this.moveTo(this.current + ms);
  }

  set(time: Date): void {
    const target = time.getTime();
    if (!Number.isFinite(target)) throw new RangeError('clock.set needs a valid date');
    if (target < this.current) {
      // Going back in time cannot "un-happen" events: move silently, evolve nothing.
      this.current = target;
      return;
    }
    this.moveTo(target);
  }

  /** listeners run synchronously on advance/set with the span covered, in registration order; a set() backwards calls no listener */
  onAdvance(listener: AdvanceListener): void {
    this.listeners.push(listener);
  }

  private moveTo(target: number): void {
    const from = new Date(this.current);
    this.current = target;
    const to = new Date(target);
    for (const listener of this.listeners) listener(from, to);
  }
}
