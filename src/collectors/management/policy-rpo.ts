/**
 * A policy's RPO from its PROTECTION stage's schedule, so that it follows a changed schedule: the period of its most frequent
 * scheduled operation plus a grace for the backup window (the schedule's `duration`, else `collection.rpoGrace`); a sub-daily
 * (HOURLY, MINUTELY) schedule's `duration` is the daily window its runs happen in, and its RPO the longest gap between runs plus
 * rpoGrace. Unreadable operations are left out; a stage with none readable gives the default. protection-policies logs why; none
 * fails a collector.
 */
import type { ExporterConfig } from '../../config/load';
import type { RpoGrace } from '../../config/schema';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The product's Schedule.frequency enum (times the interval); months and years at their longest, so that none ever looks late. */
const FREQUENCY_MS: Readonly<Record<string, number>> = {
  MINUTELY: 60_000,
  HOURLY: HOUR_MS,
  DAILY: DAY_MS,
  WEEKLY: 7 * DAY_MS,
  MONTHLY: 31 * DAY_MS,
  YEARLY: 366 * DAY_MS,
};

/** A share grace's floor: a copy shows once its backup is catalogued, and many outlast 25 % of an hour: on-time assets would page. */
export const MIN_SHARE_GRACE_MS = HOUR_MS;

/** What the PROTECTION stage says about the policy's backups. */
export type ProtectionSchedule =
  | {
      readonly readable: true;
      /** the longest time between two runs: the period, or for a sub-daily window the gap from one day's window to the next */
      readonly periodMs: number;
      /** the duration of a schedule of a day or longer; null when it gives none, and for a sub-daily one (its daily window) */
      readonly windowMs: number | null;
      /** why an operation of the stage was left out, when one was */
      readonly skipped?: string;
    }
  /** reason: why, for the log (no values of the policy beyond field names and frequencies) */
  | { readonly readable: false; readonly reason: string };

const ISO_DURATION = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** An ISO 8601 duration of days, hours, minutes and seconds ("PT90M", "P1DT2H") in ms; undefined otherwise. */
export function isoDurationMs(text: string): number | undefined {
  const match = ISO_DURATION.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, days, hours, minutes, seconds] = match;
  return Number(days ?? 0) * DAY_MS + Number(hours ?? 0) * HOUR_MS + Number(minutes ?? 0) * 60_000 + Number(seconds ?? 0) * 1000;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function readSchedule(schedule: Record<string, unknown>): ProtectionSchedule {
  const { frequency, interval, duration } = schedule;
  if (typeof frequency !== 'string') return { readable: false, reason: 'a schedule without frequency' };
  const unit = FREQUENCY_MS[frequency];
  if (unit === undefined) return { readable: false, reason: `unknown schedule frequency ${JSON.stringify(frequency.slice(0, 40))}` };
  if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1) {
    return { readable: false, reason: `a ${frequency} schedule without a whole interval of at least 1` };
  }
  const periodMs = unit * interval;
  if (duration == null) return { readable: true, periodMs, windowMs: null };
  const windowMs = typeof duration === 'string' ? isoDurationMs(duration) : undefined;
  if (windowMs === undefined) return { readable: false, reason: `a ${frequency} schedule whose duration is not an ISO 8601 duration` };
  if (periodMs < DAY_MS) return { readable: true, periodMs: longestSubDailyGapMs(periodMs, windowMs), windowMs: null };
  return { readable: true, periodMs, windowMs };
}

/**
 * A sub-daily schedule runs every period from its start time while inside its daily window (`duration`); a window of a day or
 * more runs around the clock. The longest time between two runs: one period, or from the last run inside one day's window to
 * the first of the next day's. The window is no grace here (the runs fill it): rpoGrace applies to that gap.
 */
function longestSubDailyGapMs(periodMs: number, windowMs: number): number {
  if (windowMs >= DAY_MS) return periodMs;
  // the last run of a window starts at the largest multiple of the period below its end (the first run at 0)
  const lastRunMs = windowMs > 0 ? (Math.ceil(windowMs / periodMs) - 1) * periodMs : 0;
  return Math.max(periodMs, DAY_MS - lastRunMs);
}

/** One operation's schedule; undefined for an operation run by hand (no schedule). */
function readOperation(operation: unknown): ProtectionSchedule | undefined {
  if (!isRecord(operation)) return { readable: false, reason: 'a PROTECTION operation that is not an object' };
  if (operation.schedule == null) return undefined;
  if (!isRecord(operation.schedule)) return { readable: false, reason: 'a schedule that is not an object' };
  return readSchedule(operation.schedule);
}

/** The most frequent readable scheduled operation of the PROTECTION stage(s) in `stages`; one that cannot be read is named in `skipped`. */
export function readProtectionSchedule(stages: unknown): ProtectionSchedule {
  if (!Array.isArray(stages)) return { readable: false, reason: 'no stages' };
  let best: Extract<ProtectionSchedule, { readable: true }> | undefined;
  let skipped: string | undefined;
  let protectionStages = 0;
  for (const stage of stages) {
    if (!isRecord(stage) || stage.type !== 'PROTECTION') continue;
    protectionStages += 1;
    if (!Array.isArray(stage.operations)) {
      skipped ??= 'a PROTECTION stage without operations';
      continue;
    }
    for (const schedule of stage.operations.map(readOperation)) {
      if (schedule && !schedule.readable) skipped ??= schedule.reason;
      else if (schedule && (!best || schedule.periodMs < best.periodMs)) best = schedule;
    }
  }
  if (protectionStages === 0) return { readable: false, reason: 'no PROTECTION stage' };
  if (!best) return { readable: false, reason: skipped ?? 'no scheduled PROTECTION operation' };
  return skipped === undefined ? best : { ...best, skipped };
}

/** The grace added to a period when the schedule gives no duration. */
export function graceMs(periodMs: number, grace: RpoGrace): number {
  return grace.kind === 'fixed' ? grace.ms : Math.max(MIN_SHARE_GRACE_MS, periodMs * grace.share);
}

/** The RPO of one policy under the current settings (first match wins: config by name, then by id; schedule; default). */
export function policyRpo(
  policy: { readonly id: string | null; readonly name: string },
  schedule: ProtectionSchedule | undefined,
  settings: ExporterConfig['collection'],
): { ms: number; source: 'config' | 'schedule' | 'default' } {
  const byPolicy = settings.rpoByPolicy;
  const configured = [policy.name, policy.id].find((key) => key !== null && Object.hasOwn(byPolicy, key));
  if (configured != null) return { ms: byPolicy[configured] as number, source: 'config' };
  if (schedule?.readable) {
    return { ms: schedule.periodMs + (schedule.windowMs ?? graceMs(schedule.periodMs, settings.rpoGrace)), source: 'schedule' };
  }
  return { ms: settings.defaultRpo, source: 'default' };
}
