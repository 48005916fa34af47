/**
 * Helpers for collector tests: build a target for a simulator, run one
 * collector directly (no scheduler), and pick samples out of its result.
 */
import pino, { type Logger } from 'pino';
import { parseConfig, type ExporterConfig, type TargetConfig, type TargetKind } from '../../src/config/load';
import { createClient, type ClientByKind } from '../../src/clients';
import type { RequestObserver } from '../../src/clients/http';
import { sharedView, type CollectResult, type CollectorDefinition, type Forwarding, type Labels, type Published, type Sample, type SharedEntry } from '../../src/collectors/types';
import type { Simulator } from '../../simulator/types';
import { prepareResult } from '../../src/exporters/prepared';

export const silentLogger = pino({ level: 'silent' });

/** The configuration defaults, as a config file with only the given targets would give them. */
export function defaultSettings(overrides: Partial<ExporterConfig['collection']> = {}): ExporterConfig['collection'] {
  const config = parseConfig({ targets: [{ name: 'x', kind: 'management', url: 'http://127.0.0.1:1', username: 'u', password: 'p' }] });
  return { ...config.collection, ...overrides };
}

/** A target pointing at one of the simulator's servers, with the simulator's credentials. */
export function simulatorTarget(
  sim: Simulator,
  kind: TargetKind,
  overrides: Record<string, unknown> = {},
): TargetConfig {
  const url = kind === 'management' ? sim.urls.management : kind === 'replication' ? sim.urls.replication : sim.urls.storageCenter;
  const config = parseConfig({
    targets: [{ name: `sim-${kind}`, kind, url, username: sim.username, password: sim.password, ...overrides }],
  });
  const target = config.targets[0] as TargetConfig;
  if (sim.caCertPem && !target.tls.ca && !target.tls.insecureSkipVerify) target.tls.ca = sim.caCertPem;
  return target;
}

export function clientFor<K extends TargetKind>(target: TargetConfig & { kind: K }, observer?: RequestObserver): ClientByKind[K] {
  return createClient(target, { logger: silentLogger, ...(observer ? { observer } : {}) }) as ClientByKind[K];
}

/** A published value as the scheduler keeps it, seen for staleAfter (a collector run alone has no schedule). */
const entry = (value: Published, staleAfterMs: number): SharedEntry => ({ value, until: value.readAt + staleAfterMs });

/** Runs a collector once, the way the scheduler does, but without committing anything. */
export async function runCollector<K extends TargetKind, S>(
  definition: CollectorDefinition<K, S>,
  options: {
    target: TargetConfig;
    client: ClientByKind[K];
    state?: S;
    shared?: Map<string, unknown>;
    settings?: Partial<ExporterConfig['collection']>;
    now?: () => Date;
    /** when the collector's first run started; default: this run's start (right for a first run) */
    collectingSince?: Date;
    timeoutMs?: number;
    /** default: silent */
    logger?: Logger;
    /** what the scheduler tells the collector of its time limit; absent unless given */
    timeLimit?: { readonly totalMs: number; leftMs(): number };
    /** the events forwarded over OTLP; none unless given */
    forwards?: Forwarding;
    /** the longest gap of the collector's schedule, as a scheduled run has it */
    scheduleIntervalMs?: number;
  },
): Promise<CollectResult<S>> {
  const now = options.now ?? (() => new Date());
  const shared = options.shared ?? new Map<string, unknown>();
  const settings = defaultSettings(options.settings);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('collector time limit')), options.timeoutMs ?? 30_000);
  try {
    const result = await definition.collect(
      {
        target: options.target,
        client: options.client,
        settings,
        logger: options.logger ?? silentLogger,
        state: options.state,
        shared: sharedView(new Map([...shared].map(([id, value]) => [id, entry(value as Published, settings.staleAfter)])), now),
        now,
        collectingSince: options.collectingSince ?? now(),
        ...(options.timeLimit ? { timeLimit: options.timeLimit } : {}),
        ...(options.forwards ? { forwards: options.forwards } : {}),
        ...(options.scheduleIntervalMs ? { scheduleIntervalMs: options.scheduleIntervalMs } : {}),
      },
      controller.signal,
    );
    for (const [key, value] of result.publish ?? []) shared.set(key.id, value);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

export function samplesNamed(result: CollectResult<unknown>, name: string): Sample[] {
  return result.samples.filter((sample) => sample.name === name);
}

/** The value of the one sample with this name whose labels include `labels`; undefined if none. */
export function valueOf(result: CollectResult<unknown>, name: string, labels: Labels = {}): number | undefined {
  const matches = samplesNamed(result, name).filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}

/** Fails unless the result passes the runtime's own check: catalog families, exactly their labels, no duplicate series, finite values. */
export async function expectWellFormed(result: CollectResult<unknown>, target: string): Promise<void> {
  expect(() => prepareResult(result, target)).not.toThrow();
}
