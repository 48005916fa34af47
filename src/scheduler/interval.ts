import cron from 'node-cron';

/** The nominal interval of a cron schedule in seconds: the gap between its next two runs. */
export function scheduleIntervalSeconds(expression: string): number {
  const task = cron.createTask(expression, () => undefined);
  try {
    const [first, second] = task.getNextRuns(2);
    if (!first || !second) return 0;
    return Math.round((second.getTime() - first.getTime()) / 1000);
  } finally {
    void task.destroy();
  }
}
