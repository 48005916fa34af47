/**
 * Counts the events of a listing read incrementally by a time field (activities by updateTime, audit entries by changedTime):
 * each event after `ctx.collectingSince` exactly once, in running totals by label set; the trailing `collection.window` is
 * rebuilt from the service by the first run that succeeds.
 * - Each run asks from `watermark - OVERLAP` (the newest time seen, less an overlap for events that show late).
 * - The ids of events at or after `countFrom` are remembered, so the overlap counts none twice; older ones are forgotten.
 * - Events before `countFrom` never count: history from before collecting started (read by the first successful run,
 *   remembered but not counted, so a restart never replays it), or already counted. After a first run, countFrom is no later
 *   than just past the newest event it read (the service's clock): what is newer was not there yet, even when a service whose
 *   clock is behind the exporter's stamps it before the start.
 * - A run reads at most `collection.window` (plus the overlap) of the listing's time, as a first run does: after an outage, the
 *   runs catch up a window at a time (`until`), each read bounded, instead of one read of the whole outage that would pass
 *   maxListingItems or the time limit, fail, and leave the next run more to read.
 * - The watermark never passes the exporter's clock plus the overlap: one event stamped far ahead (a service clock that jumped,
 *   a corrupt record) would push every later query past the events still appearing. Such an event still counts once.
 */

import type { Logger } from 'pino';
import { and, ge, lt, type Filter } from '../../clients/management/filter';
import type { CollectorContext } from '../types';
import { Tally, type TallyEntry } from '../shared/tally';

/** How far each run reaches back behind the newest time seen. */
export const WATERMARK_OVERLAP_MS = 10 * 60_000;

export interface CountsState<K extends readonly string[]> {
  /** newest event time seen (the service's clock), epoch ms */
  readonly watermark: number;
  readonly countFrom: number;
  /** ids seen with their event time, for times at or after countFrom */
  readonly seen: ReadonlyMap<string, number>;
  /** running totals by label set; a set once taken stays, with 0 until an event counts under it */
  readonly totals: ReadonlyArray<TallyEntry<K>>;
  /** the times of the events taken inside the window, by label set: numbers alone, which V8 keeps unboxed (8 bytes an event) */
  readonly window: ReadonlyArray<{ readonly key: K; readonly times: readonly number[] }>;
  /** what the service's clock was at least (the newest event time read so far) at the exporter's clock `exporterAt` of that run */
  readonly serviceClock?: { readonly exporterAt: number; readonly serviceAt: number };
}

/**
 * One run of a counting collector. It never changes the previous state (a failed run must leave it as it was), nor deep-clones
 * it (a window of 100,000+ events would cost much time and garbage): totals and ids are copied, the window is filtered.
 */
export class EventCounts<K extends readonly string[]> {
  readonly totals: Tally<K>;
  /** no earlier run succeeded: this one reads the history it rebuilds the window from */
  readonly first: boolean;
  /** events of this run dated beyond `latest` */
  ahead = 0;
  /** where this run's read ends (exclusive) when it catches up after an outage; undefined: up to now */
  private readonly until: number | undefined;
  private watermark: number;
  private countFrom: number;
  /** the exporter's clock of this run */
  private readonly now: number;
  /** what the service's clock is at least now (the newest event an earlier run read, plus the time since): undefined when unknown */
  private readonly serviceFloor: number | undefined;
  /** the newest event time this run read (bounded by `latest`) */
  private newest = Number.NEGATIVE_INFINITY;
  private readonly seen: Map<string, number>;
  /** the latest time the watermark may take */
  private readonly latest: number;
  private readonly windowStart: number;
  /** keyed by the tally's own array of each label set (what `totals.add` returns): no string key an event; every set taken has one */
  private readonly window = new Map<K, number[]>();

  constructor(
    state: CountsState<K> | undefined,
    clock: Pick<CollectorContext<'management', unknown>, 'now' | 'collectingSince' | 'scheduleIntervalMs'> & {
      readonly settings: { readonly window: number };
    },
  ) {
    const now = clock.now().getTime();
    const collectingSince = clock.collectingSince.getTime();
    this.first = state === undefined;
    this.latest = now + WATERMARK_OVERLAP_MS;
    this.windowStart = now - clock.settings.window;
    // A watermark already further (the exporter's clock went back) stays: lowering it, and countFrom, would count forgotten events.
    this.watermark = state?.watermark ?? Math.min(this.windowStart, collectingSince);
    // Times are whole milliseconds: what happened after the start is what happened from the next one on.
    this.countFrom = state?.countFrom ?? collectingSince + 1;
    this.seen = new Map(state?.seen);
    this.totals = new Tally(state?.totals);
    for (const { key, times } of state?.window ?? []) this.window.set(this.totals.add(key, 0), times.filter((t) => t >= this.windowStart));
    this.now = now;
    const known = state?.serviceClock;
    this.serviceFloor = known ? known.serviceAt + Math.max(0, now - known.exporterAt) : undefined;
    // Behind by the service's clock where a run has seen it: a service whose clock is behind the exporter's by more than the window
    // is not an outage, and a read up to `until` must not move the watermark past what the service has stamped yet.
    // A run reads a window, or two of its intervals: a collector scheduled less often than a short window would fall behind.
    const reach = Math.max(clock.settings.window, 2 * (clock.scheduleIntervalMs ?? 0)) + WATERMARK_OVERLAP_MS;
    this.until = (this.serviceFloor ?? now) - this.since > reach ? this.since + reach : undefined;
  }

  get since(): number {
    return this.first ? this.watermark : this.watermark - WATERMARK_OVERLAP_MS;
  }

  /** What this run reads of the listing, by its time field: from `since`, and up to `until` when it catches up. */
  range(field: string): Filter {
    return and(ge(field, new Date(this.since)), this.until === undefined ? undefined : lt(field, new Date(this.until)));
  }

  /** notes the event's position in the listing's time field; the watermark follows it up to `latest` */
  observe(time: number): void {
    if (time > this.latest) this.ahead += 1;
    const bounded = Math.min(time, this.latest);
    if (bounded > this.newest) this.newest = bounded;
    if (bounded > this.watermark) this.watermark = bounded;
  }

  /**
   * Takes the event: 'counted' when new and not before countFrom (or `followed`: seen running after collecting started);
   * 'history' when a first run reads it from before collecting started (its label set shows, with 0); undefined when taken
   * before, or before countFrom in a later run. History is remembered too, so a listing showing one event twice takes it once.
   */
  take(id: string, time: number, key: K, followed = false): 'counted' | 'history' | undefined {
    if (this.seen.has(id)) return undefined;
    const counted = followed || time >= this.countFrom;
    if (!counted && !this.first) return undefined;
    this.seen.set(id, time);
    const labelSet = this.totals.add(key, counted ? 1 : 0);
    let times = this.window.get(labelSet);
    if (!times) this.window.set(labelSet, (times = []));
    if (time >= this.windowStart) times.push(time);
    return counted ? 'counted' : 'history';
  }

  /** The events inside the window by label set; every set once taken shows, with 0. */
  inWindow(): Tally<K> {
    return new Tally(this.totals.entries().map(({ key }) => ({ key, value: this.window.get(key)?.length ?? 0 })));
  }

  /** The state for the next run, forgetting ids that can no longer come back inside the overlap; warns of events beyond `latest`. */
  finish(logger: Logger, events: string): CountsState<K> {
    // Everything before `until` was read: the next run goes on from there.
    // The service's clock is at least the newest event a read up to now (or a first run) saw, plus the time since: `until` by the
    // exporter's clock alone may be in the service's future. A later catch-up's newest event says only where its read stopped.
    const seenNow = this.until === undefined || this.first ? this.newest : Number.NEGATIVE_INFINITY;
    const serviceAt = Math.max(seenNow, this.serviceFloor ?? Number.NEGATIVE_INFINITY);
    if (this.until !== undefined) {
      this.watermark = Math.max(this.watermark, Number.isFinite(serviceAt) ? Math.min(this.until, serviceAt) : this.until);
      logger.info({ readUntil: new Date(this.until).toISOString() }, `${events}: catching up, a window at a time`);
    }
    if (this.ahead > 0) {
      const problem =
        "later than the exporter's clock plus the overlap: the service's clock or data is off; the watermark does not follow them";
      logger.warn({ count: this.ahead }, `${events} ${problem}`);
    }
    // What a first run read is all there was up to its newest event: anything newer appears after it, and counts. The start
    // alone (the exporter's clock) would leave uncounted what a service whose clock is behind stamps before it.
    if (this.first) this.countFrom = Math.min(this.countFrom, this.watermark + 1);
    this.countFrom = Math.max(this.countFrom, this.watermark - WATERMARK_OVERLAP_MS);
    for (const [id, time] of this.seen) if (time < this.countFrom) this.seen.delete(id);
    const { watermark, countFrom, seen } = this;
    const window = [...this.window].map(([key, times]) => ({ key, times }));
    const serviceClock = Number.isFinite(serviceAt) ? { exporterAt: this.now, serviceAt } : undefined;
    return { watermark, countFrom, seen, totals: this.totals.entries(), window, ...(serviceClock ? { serviceClock } : {}) };
  }
}
