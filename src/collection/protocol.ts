/** The messages between host.ts and worker.ts: structured clones; a new result's bytes are transferred, not copied. */
import type { ExporterConfig, TargetConfig } from '../config/load';
import type { CollectorRecord } from '../snapshot/store';
import type { TracingPlan } from '../tracing';
import type { RunResult } from '../scheduler/job';
import type { ConfigChange, RequestEvent } from '../runtime';
import { Secret } from '../util/secret';

/** A configuration as it crosses: the passwords as text (a Secret's value is private to it and does not clone). */
export interface WireConfig extends Omit<ExporterConfig, 'targets'> {
  targets: Array<Omit<TargetConfig, 'password'> & { password: string }>;
}

export function toWire(config: ExporterConfig): WireConfig {
  return { ...config, targets: config.targets.map((target) => ({ ...target, password: target.password.reveal() })) };
}

export function fromWire(config: WireConfig): ExporterConfig {
  return { ...config, targets: config.targets.map((target) => ({ ...target, password: new Secret(target.password) })) };
}

export interface WorkerStart {
  config: WireConfig;
  /** the serving thread's log level (its logger's, which tests silence) */
  logLevel: string;
  preload?: string[];
  tracing?: TracingPlan;
  /** how far the collection clock runs ahead of real time (advanceClock) */
  clockOffsetMs?: number;
  /** the last checkpoints of the thread before this one (see CheckpointBytes) */
  checkpoints?: CheckpointBytes[];
}

/** A JobCheckpoint (src/scheduler/job.ts) as v8.serialize bytes, which the serving thread keeps for the next collection thread, unread. */
export interface CheckpointBytes {
  target: string;
  collector: string;
  bytes: Uint8Array;
}

/** Asked of the collection thread; each `id` is answered by one reply. */
export type ToWorker =
  | { type: 'schedule' }
  | { type: 'advanceClock'; ms: number }
  | { type: 'runOnce'; id: number }
  | { type: 'apply'; id: number; config: WireConfig }
  | { type: 'stop'; id: number; budgetMs: number };

/** Told by the collection thread. A record carries its result only when that result is new. */
export type FromWorker =
  | { type: 'record'; record: CollectorRecord }
  | { type: 'removed'; target: string; collector: string }
  | ({ type: 'checkpoint' } & CheckpointBytes)
  | { type: 'requests'; events: RequestEvent[] }
  | { type: 'otlpDropped'; signal: 'traces' | 'logs'; count: number }
  | { type: 'otlpOutstanding'; signal: 'traces' | 'logs'; count: number }
  | { type: 'firstRound'; complete: boolean }
  /** a stop's value: the steps it cut short (its spans not all sent) */
  | { type: 'reply'; id: number; value?: RunResult[] | ConfigChange | string[]; error?: string };
