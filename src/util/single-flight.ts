/**
 * One run of shared work at a time (one login, one discovery): a caller that
 * arrives while it runs waits for the same promise, and the first caller
 * after it settles, fulfilled or not, starts a new run. A caller's signal
 * ends its own wait, not the shared work: another caller may still want it.
 */
export class SingleFlight<T> {
  private running: Promise<T> | undefined;

  constructor(private readonly work: () => Promise<T>) {}

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

  /** Resolves once no run is in flight (whatever its outcome). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
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
