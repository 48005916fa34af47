/**
 * The whole monitoring chain on loopback, for end-to-end tests: the simulator
 * (truth), the exporter in-process collecting it on fast schedules, and a real
 * Prometheus scraping the exporter with the rules of alerts/ loaded.
 *
 *   const stack = await startStack({ seed: 11, size: {...}, collection: {...} });
 *   try { ... stack.sim.estate ..., await stack.prometheus.alerts() ... } finally { await stack.stop(); }
 *
 * With `productSpelling`, a second simulator of the same seed and size speaks
 * the real products' spelling of the storage and replication APIs, and the
 * same exporter collects its replication and storage servers as two more
 * targets (PRODUCT_TARGETS; both spellings found by the exporter itself, as
 * with apiSpelling unset in production).
 *
 * Whatever was started is stopped again when a later step fails, so a failing
 * start never leaves a Prometheus process or a listening server behind.
 */
import pino, { type Logger } from 'pino';
import { COLLECTORS } from '../../src/collectors/registry';
import { parseConfig, type ExporterConfig, type TargetKind } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator';
import { ruleFiles } from '../rules/rules-files';
import { startPrometheus, type PrometheusHarness, type ScrapeConfig } from './prometheus-harness';

/** The Prometheus job; it matches the rules' exporter job regex (dataprotect.*). */
export const SCRAPE_JOB = 'dataprotect';
/** Target names in the exporter's configuration (the `target` label). */
export const TARGETS = { management: 'backup', replication: 'replication', storage: 'storage' } as const satisfies Record<TargetKind, string>;
/** Target names of the product-spelling simulator's replication and storage servers. */
export const PRODUCT_TARGETS = { replication: 'replication-product', storage: 'storage-product' } as const;

export interface StackOptions {
  readonly seed: number;
  readonly size: SimulatorOptions['size'];
  /** the exporter's `collection` section (RPOs ...) */
  readonly collection: Record<string, unknown>;
  /** cron schedule (node-cron, with seconds) of every collector of every target */
  readonly schedule: string;
  /** rule files Prometheus loads; default the production ones of alerts/ */
  readonly ruleFiles?: readonly string[];
  /** lets the test shape the estate after generation and before the exporter's first collection */
  readonly prepare?: (sim: RunningSimulator) => void;
  /** also the product-spelling simulator (see the module comment); `prepare` shapes it too */
  readonly productSpelling?: boolean;
  /** Prometheus's scrape jobs, given the exporter's host:port; default one job (SCRAPE_JOB) scraping /metrics */
  readonly scrapeConfigs?: (exporterHost: string) => readonly ScrapeConfig[];
}

export interface Stack {
  readonly sim: RunningSimulator;
  /** the product-spelling simulator, with `productSpelling` */
  readonly productSim?: RunningSimulator;
  readonly exporter: Exporter;
  readonly prometheus: PrometheusHarness;
  readonly config: ExporterConfig;
  /** the exporter's warnings and errors so far (JSON lines), for failure messages */
  exporterLogs(): string;
  /** Stops Prometheus, the exporter and the simulator; safe to call twice. */
  stop(): Promise<void>;
}

const LOG_LINES_KEPT = 200;

/** A pino logger that keeps its last lines in memory instead of writing them out. */
function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { level: 'warn' },
    {
      write(line: string) {
        lines.push(line.trimEnd());
        if (lines.length > LOG_LINES_KEPT) lines.shift();
      },
    },
  );
  return { logger, lines };
}

/** Every collector of the kind on the same fast schedule. */
function everyCollectorOn(kind: TargetKind, schedule: string): Record<string, { schedule: string }> {
  return Object.fromEntries(COLLECTORS[kind].map((collector) => [collector.name, { schedule }]));
}

/** The replication and storage servers of the product-spelling simulator as targets. */
function productTargets(sim: RunningSimulator, schedule: string): unknown[] {
  const credentials = { username: sim.username, password: sim.password };
  return [
    { name: PRODUCT_TARGETS.replication, kind: 'replication', url: sim.urls.replication, ...credentials, collectors: everyCollectorOn('replication', schedule) },
    { name: PRODUCT_TARGETS.storage, kind: 'storage', url: sim.urls.storageCenter, storageMode: 'center', ...credentials, collectors: everyCollectorOn('storage', schedule) },
  ];
}

function exporterConfig(sim: RunningSimulator, productSim: RunningSimulator | undefined, options: StackOptions): ExporterConfig {
  const credentials = { username: sim.username, password: sim.password };
  return parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    collection: options.collection,
    targets: [
      { name: TARGETS.management, kind: 'management', url: sim.urls.management, ...credentials, collectors: everyCollectorOn('management', options.schedule) },
      { name: TARGETS.replication, kind: 'replication', url: sim.urls.replication, ...credentials, collectors: everyCollectorOn('replication', options.schedule) },
      {
        name: TARGETS.storage,
        kind: 'storage',
        url: sim.urls.storageCenter,
        storageMode: 'center',
        ...credentials,
        collectors: everyCollectorOn('storage', options.schedule),
      },
      ...(productSim ? productTargets(productSim, options.schedule) : []),
    ],
  });
}

function defaultScrapeConfigs(exporterHost: string): ScrapeConfig[] {
  return [{ job_name: SCRAPE_JOB, static_configs: [{ targets: [exporterHost] }] }];
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    // Prometheus first (it scrapes the exporter), the simulator last (the exporter reads it).
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const sim = await startSimulator({ seed: options.seed, size: options.size });
    stops.push(() => sim.close());
    options.prepare?.(sim);
    let productSim: RunningSimulator | undefined;
    if (options.productSpelling) {
      const started = await startSimulator({ seed: options.seed, size: options.size, apiSpelling: 'product' });
      stops.push(() => started.close());
      options.prepare?.(started);
      productSim = started;
    }

    const config = exporterConfig(sim, productSim, options);
    const { logger, lines } = memoryLogger();
    // processMetrics off: the process_* series would be the test runner's, not an exporter's.
    const exporter = new Exporter(config, logger, { processMetrics: false });
    stops.push(() => exporter.stop());
    await exporter.start();

    const prometheus = await startPrometheus({
      ruleFiles: options.ruleFiles ?? ruleFiles(),
      scrapeInterval: '1s',
      evaluationInterval: '1s',
      startTimeoutMs: 15_000,
      scrapeConfigs: (options.scrapeConfigs ?? defaultScrapeConfigs)(new URL(exporter.address()).host),
    });
    stops.push(() => prometheus.stop());

    return { sim, ...(productSim ? { productSim } : {}), exporter, prometheus, config, exporterLogs: () => lines.join('\n'), stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
