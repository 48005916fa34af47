/** One run of shared work at a time (one login, one discovery); a caller's signal ends its own wait only, as others may want the work. */
export class SingleFlight<T> {
  private running: Promise<T> | undefined;

  constructor(private readonly work: () => Promise<T>) {}

  /** Whether work is running: a caller now shares the run another caller started. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The running work's result for this caller; `abortError` is what its aborted wait rejects with. */
  run(signal: AbortSignal | undefined, abortError: () => Error): Promise<T> {
    const running = (this.running ??= this.start());
    if (!signal) return running;
    if (signal.aborted) return Promise.reject(abortError());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(abortError());
      signal.addEventListener('abort', onAbort, { once: true });
      void running.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** The running work settled, either way; or `signal` aborted first (a wait that must not outlast its own limit). */
  async settled(signal?: AbortSignal): Promise<void> {
    const running = this.running?.then(() => undefined, () => undefined);
    if (!running || !signal) return running;
    if (signal.aborted) return;
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([running, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
  }

  private start(): Promise<T> {
    const running = this.work();
    const forget = (): void => {
      if (this.running === running) this.running = undefined;
    };
    running.then(forget, forget);
    return running;
  }
}
