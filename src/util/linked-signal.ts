/**
 * A signal that aborts when its parent does or its time limit passes, and lets go of the parent once disposed: not AbortSignal.any,
 * whose composites Node 20 keeps under a long-lived parent for good (nodejs/node#54614), one per HTTP attempt, without bound.
 */
import { setMaxListeners } from 'node:events';

export class LinkedSignal {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly followParent = (): void => this.controller.abort(this.parent?.reason);
  /** whether the time limit, not the parent, aborted it */
  timedOut = false;

  constructor(
    private readonly parent: AbortSignal | undefined,
    timeoutMs?: number,
  ) {
    // Every request in flight under it listens: more than Node's default of 10 is normal, and each goes at dispose().
    setMaxListeners(Infinity, this.controller.signal);
    if (parent?.aborted) this.followParent();
    else parent?.addEventListener('abort', this.followParent, { once: true });
    if (timeoutMs !== undefined) this.startTimer(timeoutMs);
  }

  /** Starts the time limit now (an HTTP attempt's once a connection takes it); a second call changes nothing. */
  startTimer(timeoutMs: number): void {
    if (this.timer !== undefined || this.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException(`no end within ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs).unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(): void {
    this.controller.abort();
  }

  /** Stops the timer and unhooks it from the parent: call when the work it limits has ended. */
  dispose(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.followParent);
  }
}
