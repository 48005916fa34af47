/**
 * How late an event loop was while it was watched: every stall is seen, where
 * periodic probes sample only a few, so it shows what holds the loop.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelayReport {
  p99Ms: number;
  maxMs: number;
}

export class LoopLateness {
  private readonly histogram: IntervalHistogram;

  constructor(private readonly resolutionMs: number) {
    this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  }

  start(): void {
    this.histogram.enable();
  }

  stop(): LoopDelayReport {
    this.histogram.disable();
    return { p99Ms: this.lateMs(this.histogram.percentile(99)), maxMs: this.lateMs(this.histogram.max) };
  }

  /**
   * Node's histogram records the time between two ticks of its timer, the
   * resolution included (an idle loop reads 10.1 ms at p50 and p99 with a
   * 10 ms resolution): how late the loop was is what exceeds the resolution.
   */
  private lateMs(tickIntervalNs: number): number {
    return Math.max(0, tickIntervalNs / 1e6 - this.resolutionMs);
  }
}

/**
 * The IPC commands of a child whose event loop the benchmark watches:
 * loopDelayStart, then loopDelayStop for what happened in between, sampled
 * every 10 ms.
 */
export function loopLatenessCommands(): { loopDelayStart: () => void; loopDelayStop: () => LoopDelayReport } {
  let watching: LoopLateness | undefined;
  return {
    loopDelayStart: () => {
      watching = new LoopLateness(10);
      watching.start();
    },
    loopDelayStop: () => {
      if (!watching) throw new Error('loopDelayStart first');
      const report = watching.stop();
      watching = undefined;
      return report;
    },
  };
}
