/**
 * A schedule's interval is its longest gap (irregular-schedule.test.ts). A schedule that skips days and runs more than about 1,600
 * times on each day it runs (every 30 s on weekdays) must find the gap over the days it skips too, not only among its next runs.
 */
import { scheduleGaps } from '../../src/scheduler/interval';

/** Monday 2 March 2026, 18:30 local time (node-cron reads schedules in local time). */
const MONDAY_EVENING = new Date(2026, 2, 2, 18, 30);

beforeEach(() => jest.useFakeTimers({ now: MONDAY_EVENING, doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate'] }));
afterEach(() => jest.useRealTimers());

it('finds the weekend gap of a schedule running every 30 s on weekdays, whichever day it is computed', () => {
  // Friday 23:59:30 to Monday 00:00:00
  expect(scheduleGaps('*/30 * * * * 1-5')).toEqual({ shortest: 30, longest: 2 * 86_400 + 30 });
  // every 10 s from 08:00 to 17:59 on weekdays: Friday 17:59:50 to Monday 08:00:00
  expect(scheduleGaps('*/10 * 8-17 * * 1-5')).toEqual({ shortest: 10, longest: 2 * 86_400 + 14 * 3600 + 10 });
  // the cases a walk over the next runs found already
  expect(scheduleGaps('0 9 * * 1-5')).toEqual({ shortest: 86_400, longest: 3 * 86_400 });
  expect(scheduleGaps('* * * * 1-5')).toEqual({ shortest: 60, longest: 2 * 86_400 + 60 });
  expect(scheduleGaps('0 0 1 * *').longest).toBeGreaterThanOrEqual(28 * 86_400);
});
