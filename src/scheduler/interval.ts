import cron from 'node-cron';

const DAY_SECONDS = 86_400;
/** A weekly pattern and the run after it. */
const LOOKAHEAD_MS = 8 * DAY_SECONDS * 1000;
/** Runs walked at most (node-cron finds one in about 60 µs): a bound on the walk of a macro such as @weekly, or of the days run. */
const MAX_WALKED_RUNS = 8_192;

/** The shortest and the longest gap between two runs of a cron schedule, in seconds. */
export interface ScheduleGaps {
  readonly shortest: number;
  readonly longest: number;
}

/** Expressions already reckoned: a job asks at every success. Few distinct ones (the config's); bounded against many reloads. */
const cache = new Map<string, ScheduleGaps>();
const MAX_CACHED = 256;

/**
 * The gaps of a cron schedule, whenever they are asked: "0 8-18 * * *" runs hourly by day and not from 18:00 to 08:00, so its
 * gaps are 1 h and 14 h, whichever comes next.
 */
export function scheduleGaps(expression: string): ScheduleGaps {
  const cached = cache.get(expression);
  if (cached !== undefined) return cached;
  const gaps = gapsOfSchedule(expression);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(expression, gaps);
  return gaps;
}

/** The interval to judge staleness by: the longest gap, or a collector on business hours would lose its series every night. */
export function scheduleIntervalSeconds(expression: string): number {
  return scheduleGaps(expression).longest;
}

/** The seconds of the day a schedule runs at, ascending: the same on every day it runs (its time fields do not depend on the day). */
function timesOfDay(second: readonly number[], minute: readonly number[], hour: readonly number[]): number[] {
  return [...new Set(hour.flatMap((h) => minute.flatMap((m) => second.map((s) => h * 3600 + m * 60 + s))))].sort((a, b) => a - b);
}

/**
 * Its gaps within a day it runs, and between the days it runs (every day, weekdays, days of the month) over a week and a day.
 * The days are walked, not the runs: a schedule running every 30 s on weekdays has too many runs for a walk to reach its weekend.
 * An expression whose day fields cannot be told apart (not 5 or 6 fields) has its next runs walked, up to MAX_WALKED_RUNS.
 */
function gapsOfSchedule(expression: string): ScheduleGaps {
  const fields = expression.trim().split(/\s+/);
  const { second, minute, hour } = cron.parse(expression);
  const times = timesOfDay(second, minute, hour);
  const [first, last] = [times[0], times[times.length - 1]];
  if ((fields.length !== 5 && fields.length !== 6) || first === undefined || last === undefined) {
    return gapsOf(nextRuns(expression).map((run) => Math.round(run.getTime() / 1000)));
  }
  // The days it runs: the same day fields at midnight, one run a day, counted in whole days (a day of a clock change is one too).
  const days = nextRuns(`0 0 0 ${fields.slice(-3).join(' ')}`).map((day) => Math.round(day.getTime() / 1000 / DAY_SECONDS));
  const within = gapsOf(times);
  const across = days.slice(1).map((day, index) => (day - (days[index] as number)) * DAY_SECONDS + first - last);
  const gaps = [...(within.longest > 0 ? [within.shortest, within.longest] : []), ...across];
  return gaps.length === 0 ? { shortest: 0, longest: 0 } : { shortest: Math.min(...gaps), longest: Math.max(...gaps) };
}

/** The next runs of a schedule over a week and a day, or MAX_WALKED_RUNS of them; at least two when it runs twice. */
function nextRuns(expression: string): Date[] {
  const task = cron.createTask(expression, () => undefined);
  try {
    let runs: Date[] = [];
    for (let count = 2; count <= MAX_WALKED_RUNS; count *= 2) {
      runs = task.getNextRuns(count);
      const [first, last] = [runs[0], runs[runs.length - 1]];
      if (!first || !last || last.getTime() - first.getTime() >= LOOKAHEAD_MS) break;
    }
    return runs;
  } finally {
    void task.destroy();
  }
}

/** The gaps between ascending times in seconds; 0 and 0 for fewer than two. */
function gapsOf(times: readonly number[]): ScheduleGaps {
  let shortest = Infinity;
  let longest = 0;
  for (let index = 1; index < times.length; index++) {
    const gap = (times[index] as number) - (times[index - 1] as number);
    shortest = Math.min(shortest, gap);
    longest = Math.max(longest, gap);
  }
  return longest === 0 ? { shortest: 0, longest: 0 } : { shortest, longest };
}
