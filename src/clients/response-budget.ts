/**
 * The bytes of response bodies buffered at once across the whole process.
 *
 * Each body is also capped on its own (a target's `maxResponseBytes`), but
 * with several targets, four connections each, the caps add up past a pod's
 * memory limit when upstreams misbehave together (bodies that never end). The
 * budget bounds the sum: a body takes its bytes chunk by chunk, and when a
 * chunk does not fit, the largest body in flight is refused, which frees the
 * most memory at once and is almost always the misbehaving one (a legitimate
 * page is a few MB; an endless body grows until it is stopped). Waiting for
 * room instead could stall every body at once until their time limits.
 */
export class ResponseBudget {
  private used = 0;
  private readonly bodies = new Set<BudgetedBody>();

  /** a new limit (on reload) applies from the next chunk read */
  constructor(public limitBytes: number) {}

  /** bytes held by bodies now in flight */
  get usedBytes(): number {
    return this.used;
  }

  /** a body about to be read; `refuse` ends it when the budget needs its bytes back */
  open(refuse: () => void): BudgetedBody {
    const body = new BudgetedBody(this, refuse);
    this.bodies.add(body);
    return body;
  }

  /** @internal */
  take(body: BudgetedBody, bytes: number): boolean {
    while (this.used + bytes > this.limitBytes) {
      const largest = this.largest();
      if (largest === undefined || largest === body || largest.held <= body.held) return false;
      largest.refuseNow();
    }
    this.used += bytes;
    return true;
  }

  /** @internal */
  give(body: BudgetedBody): void {
    if (!this.bodies.delete(body)) return;
    this.used -= body.held;
  }

  private largest(): BudgetedBody | undefined {
    let found: BudgetedBody | undefined;
    for (const body of this.bodies) if (found === undefined || body.held > found.held) found = body;
    return found;
  }
}

export class BudgetedBody {
  held = 0;
  /** refused by the budget, or released: it takes nothing more */
  private closed = false;

  constructor(
    private readonly budget: ResponseBudget,
    private readonly refuse: () => void,
  ) {}

  /** takes room for a chunk; false when the body must stop (it is the largest in flight and the budget is full) */
  take(bytes: number): boolean {
    if (this.closed) return false;
    if (!this.budget.take(this, bytes)) {
      this.release();
      return false;
    }
    this.held += bytes;
    return true;
  }

  /** gives the body's bytes back: its text was decoded, or it failed */
  release(): void {
    this.closed = true;
    this.budget.give(this);
    this.held = 0;
  }

  /** @internal the budget takes this body's bytes back for a body that needs them more */
  refuseNow(): void {
    this.release();
    this.refuse();
  }
}
