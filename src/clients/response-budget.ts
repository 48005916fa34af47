/**
 * The bytes of response bodies buffered at once across the whole process. Each body is also capped (a target's
 * `maxResponseBytes`), but with several targets, four connections each, the caps add up past a pod's memory limit when
 * upstreams misbehave together (bodies that never end). When a body's next chunk does not fit, the largest body in flight
 * is refused: that frees the most memory at once and is almost always the misbehaving one (a legitimate page is a few MB;
 * an endless body grows until stopped). Waiting for room instead could stall every body at once until their time limits.
 */
/** One body's share of the budget, as its reader uses it. */
export interface BodyShare {
  /** takes room for a chunk; false when the body must stop (it is the largest in flight and the budget is full) */
  take(bytes: number): boolean;
  /** gives the body's bytes back: its text was decoded, or it failed */
  release(): void;
}

/** A body in flight, as the budget sees it. */
export interface BudgetedBody {
  bytes: number;
  refuse: () => void;
}

export class ResponseBudget {
  private used = 0;
  /** the bodies in flight; a refused or released one is not here and takes nothing more */
  private readonly bodies = new Set<BudgetedBody>();

  /** a new limit (on reload) applies from the next chunk read */
  constructor(public limitBytes: number) {}

  get usedBytes(): number {
    return this.used;
  }

  /** a body about to be read; `refuse` ends it when the budget needs its bytes back */
  open(refuse: () => void): BodyShare {
    const body: BudgetedBody = { bytes: 0, refuse };
    this.bodies.add(body);
    return { take: (bytes) => this.take(body, bytes), release: () => this.release(body) };
  }

  /** Room for a chunk of `body`, refusing larger bodies while it does not fit; when `body` is the largest, it stops instead. */
  protected take(body: BudgetedBody, bytes: number): boolean {
    if (!this.bodies.has(body)) return false;
    while (this.used + bytes > this.limitBytes) {
      let largest = body;
      for (const other of this.bodies) if (other.bytes > largest.bytes) largest = other;
      this.release(largest);
      if (largest === body) return false;
      largest.refuse();
    }
    body.bytes += bytes;
    this.used += bytes;
    return true;
  }

  private release(body: BudgetedBody): void {
    if (this.bodies.delete(body)) this.used -= body.bytes;
  }
}
