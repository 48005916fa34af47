import { settlesWithin } from './util/settles-within';

/** How long a stop may take: a third of Kubernetes' default grace period of 30 s, so a rollout never ends in a SIGKILL. */
export const STOP_DEADLINE_MS = 10_000;

/** Longest wait for the last estate events and spans at stop: a dead OTLP endpoint must not hold the process. */
export const FLUSH_MS = 5_000;

export const SPANS_STEP = 'exporting the last spans';
export const COLLECTION_STOP_STEP = "the collection thread's stop (logouts, the last estate events and spans)";

/** Kept back from each step's own time limit, for the steps after it and the exit itself. */
const RESERVE_MS = 500;

export class StopDeadline {
  private readonly endsAt: number;
  /** the steps that did not finish in the time they were given */
  readonly cutShort: string[] = [];

  constructor(
    readonly totalMs: number = STOP_DEADLINE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.endsAt = now() + totalMs;
  }

  budgetMs(capMs = Infinity): number {
    return Math.max(0, Math.min(capMs, this.endsAt - this.now() - RESERVE_MS));
  }

  /** Whether `work` finished by the deadline (else `step` is cut short). It is not cancelled: the caller aborts what it can. */
  async bound(step: string, work: Promise<unknown>): Promise<boolean> {
    const finished = await settlesWithin(work, this.endsAt - this.now());
    if (!finished) this.cutShort.push(step);
    return finished;
  }
}
