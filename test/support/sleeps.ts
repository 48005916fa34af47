/**
 * The waits the HTTP core asks for (backoff, Retry-After), recorded instead of
 * slept: a test checks how long the client chose to wait, not how long the
 * machine took, and does not spend the wait. An aborted signal still ends a
 * wait at once, as the real sleep does.
 */
import * as sleepModule from '../../src/util/sleep';

export interface RecordedSleeps {
  /** the delays asked for, in milliseconds, in order */
  readonly delays: number[];
  restore(): void;
}

export function recordSleeps(): RecordedSleeps {
  const delays: number[] = [];
  const spy = jest.spyOn(sleepModule, 'sleep').mockImplementation((ms, signal) => {
    delays.push(ms);
    return signal?.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve();
  });
  return { delays, restore: () => spy.mockRestore() };
}
