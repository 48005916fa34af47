import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { detached, type CollectorJob } from './job';

/**
 * One node-cron task per collector job. Overlap protection and time limits
 * live in CollectorJob, so a slow run makes the next tick count as skipped
 * instead of piling up.
 */
export class Scheduler {
  private readonly tasks = new Map<CollectorJob, ScheduledTask>();

  constructor(private readonly logger: Logger) {}

  add(job: CollectorJob): void {
    const task = cron.createTask(job.schedule, () => detached(() => void job.run()), {
      name: `${job.runtime.config.name}/${job.name}`,
    });
    this.tasks.set(job, task);
    void task.start();
  }

  /** Stops the job (its schedule and any other caller) and waits for its current run. */
  async remove(job: CollectorJob): Promise<void> {
    const task = this.tasks.get(job);
    this.tasks.delete(job);
    const stopping = job.stop();
    if (task) await task.destroy();
    await stopping;
  }

  /**
   * Stops every schedule and job, then waits for the runs going on (graceful
   * shutdown), aborting their requests after `abortAfterMs`.
   */
  async stop(options: { abortAfterMs?: number } = {}): Promise<void> {
    const jobs = [...this.tasks.keys()];
    const stopping = jobs.map((job) => job.stop(options));
    await Promise.all([...this.tasks.values()].map((task) => task.destroy()));
    this.tasks.clear();
    const running = jobs.filter((job) => job.isRunning);
    if (running.length > 0) this.logger.info({ running: running.length }, 'waiting for running collections to finish');
    await Promise.all(stopping);
  }
}
