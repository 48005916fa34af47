import type { Logger } from 'pino';
import type { ExporterConfig, TargetConfig, TargetKind } from '../config/load';
import type { ClientByKind } from '../clients';
import type { MetricName } from '../metrics/catalog';
import type { Activity, AuditLog } from '../clients/management/schemas';

export type Labels = Readonly<Record<string, string>>;

/** One gauge or counter series. Counters carry their cumulative value (the collector keeps the running total in its state). */
export interface Sample {
  readonly name: MetricName;
  readonly labels: Labels;
  readonly value: number;
}

/** One histogram series with cumulative bucket counts; `bounds` excludes +Inf (that is `count`). */
export interface HistogramSample {
  readonly name: MetricName;
  readonly labels: Labels;
  readonly bounds: readonly number[];
  readonly bucketCounts: readonly number[];
  readonly count: number;
  readonly sum: number;
}

/** A value one collector publishes for the other collectors of the same target (e.g. the asset list), typed by its key. */
export class SharedKey<T extends Published> {
  declare readonly __type?: T;

  constructor(readonly id: string) {}
}

/** What a collector publishes: `readAt` (exporter clock, epoch ms) says how old it is. */
export type Published = { readonly readAt: number };

/** A published value and the last moment (exporter clock, epoch ms) the other collectors see it. */
export type SharedEntry = { readonly value: Published; readonly until: number };

/** The shared values as a run sees them: a publisher that keeps failing steers the others no longer than its own series are served. */
export function sharedView(entries: ReadonlyMap<string, SharedEntry>, now: () => Date): CollectorContext<TargetKind, unknown>['shared'] {
  return {
    get: <T extends Published>(key: SharedKey<T>): T | undefined => {
      const entry = entries.get(key.id);
      return entry && now().getTime() <= entry.until ? (entry.value as T) : undefined;
    },
  };
}

export interface CollectorContext<K extends TargetKind, S> {
  readonly target: TargetConfig;
  readonly client: ClientByKind[K];
  /** the `collection:` section of the configuration (durations in ms) */
  readonly settings: ExporterConfig['collection'];
  readonly logger: Logger;
  /** the collector's state after its last successful run (undefined until one succeeds) */
  readonly state: S | undefined;
  readonly shared: { get<T extends Published>(key: SharedKey<T>): T | undefined };
  /** wall clock (tests may replace it) */
  now(): Date;
  /**
   * When this collector's first run for this target started: counters count what happens after it. It stays through failed runs
   * and reloads that keep the state; a restart, or a target whose connection settings changed, starts again.
   */
  readonly collectingSince: Date;
  /** The estate's events that are forwarded (OTLP): only those are kept, as a first run admits a whole window of them. */
  readonly forwards?: Forwarding;
  /** The longest gap between two runs of the collector's schedule: the time a run normally covers; absent outside a schedule. */
  readonly scheduleIntervalMs?: number;
  /** The run's time limit, for a collector that can stop early and keep what it did (copies' per-asset reads); absent when unlimited. */
  readonly timeLimit?: { readonly totalMs: number; leftMs(): number };
}

export interface CollectResult<S> {
  samples: Sample[];
  histograms?: HistogramSample[];
  /** the state the next run starts from; kept only if this run succeeds */
  state?: S;
  /** values for the other collectors of this target; published only if this run succeeds */
  publish?: Array<[SharedKey<Published>, Published]>;
  /** items read, for logs and spans (the HTTP client counts the requests) */
  items?: number;
  /** the estate's events this run admitted (each once), forwarded over OTLP only if this run succeeds */
  events?: EstateEvents;
}

/** Which of the estate's events are forwarded over OTLP; a first run's history only what completed after historyAfter (epoch ms). */
export type Forwarding = Readonly<Record<'activities' | 'auditEntries', boolean> & { historyAfter: number }>;

export interface EstateEvents {
  /** completed activities to send: those counted, and a first run's history as far back as `otlp.backfill` reaches */
  activities?: Activity[];
  /** a first run's other jobs, not sent: the forwarder parents their tasks by them */
  jobs?: Activity[];
  auditEntries?: AuditLog[];
}

/** A collector (DEVELOPERS.md, "Adding a collector"): it changes nothing outside its result, so a failed run leaves the last good state. */
export interface CollectorDefinition<K extends TargetKind = TargetKind, S = unknown> {
  readonly name: string;
  readonly kind: K;
  readonly description: string;
  /** cron expression (node-cron syntax, seconds field optional) */
  readonly defaultSchedule: string;
  readonly metrics: readonly MetricName[];
  /** Collectors listed before this one whose first run it waits for in a first round (start, --once): it reads what they publish. */
  readonly after?: readonly string[];
  collect(ctx: CollectorContext<K, S>, signal: AbortSignal): Promise<CollectResult<S>>;
}

/** A collector of any state (of kind K, or any kind), as the registry and the scheduler hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCollector<K extends TargetKind = any> = CollectorDefinition<K, any>;

export function defineCollector<K extends TargetKind, S = undefined>(definition: CollectorDefinition<K, S>): CollectorDefinition<K, S> {
  return definition;
}

/** A failure the collector has already logged in full: the scheduler keeps its own line to debug. */
export class PermissionDenied extends Error {
  override name = 'PermissionDenied';
}
