import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { context, trace } from '@opentelemetry/api';
import type { CollectorJob } from './job';

/**
 * How late a run may start when the thread was busy at its time (node-cron's default is 1 s): it still runs unless its next time
 * has come too. A 50,000-asset result's preparation can hold the collection thread about a second.
 */
const LATE_RUN_TOLERANCE_MS = 60_000;

/** One node-cron task per job; CollectorJob's overlap protection makes the tick after a slow run count as skipped, not pile up. */
export class Scheduler {
  private readonly tasks = new Map<CollectorJob, ScheduledTask>();

  constructor(private readonly logger: Logger) {}

  /** Runs the job on its schedule from now on (a job already scheduled keeps its task). */
  add(job: CollectorJob): void {
    if (this.tasks.has(job)) return;
    // Outside any active span: a cron callback should not inherit a caller's trace.
    const task = cron.createTask(job.settings.schedule, () => context.with(trace.deleteSpan(context.active()), () => void job.run()), {
      name: `${job.runtime.config.name}/${job.name}`,
      missedExecutionTolerance: LATE_RUN_TOLERANCE_MS,
    });
    // A time the thread was busy past (node-cron would print a line of plain text amid the JSON logs, and nothing would count it).
    task.on('execution:missed', () => job.missed());
    this.tasks.set(job, task);
    void task.start();
  }

  /** Follows a change of the job's schedule: its next run at the new schedule's next time, none at once. */
  async reschedule(job: CollectorJob): Promise<void> {
    const task = this.tasks.get(job);
    if (!task) return; // not scheduled yet: its first round adds it with the new schedule
    this.tasks.delete(job);
    await task.destroy();
    this.add(job);
  }

  /** Stops the job (its schedule and any other caller), aborting its current run. */
  async remove(job: CollectorJob): Promise<void> {
    const task = this.tasks.get(job);
    this.tasks.delete(job);
    const stopping = job.stop();
    if (task) await task.destroy();
    await stopping;
  }

  /** Stops every schedule and job, aborting the runs going on (shutdown). */
  async stop(): Promise<void> {
    const jobs = [...this.tasks.keys()];
    const running = jobs.filter((job) => job.isRunning);
    if (running.length > 0) this.logger.info({ running: running.length }, 'aborting running collections');
    await Promise.all(jobs.map((job) => this.remove(job)));
  }
}
