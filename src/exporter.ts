import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ExporterConfig } from './config/load';
import { ExporterRuntime } from './runtime';
import type { RunResult } from './scheduler/job';
import { SelfMetrics } from './exporters/self-metrics';
import { MetricsRenderer } from './exporters/renderer';
import { createHttpApp } from './exporters/app';
import { closeServer, listen, reloadTls } from './exporters/listener';
import { readTlsPair } from './config/tls-pair';
import { basicAuthGuard, sharedBcryptWorker } from './exporters/auth';
import { forwarderFor, type EstateEventForwarder } from './otlp/forwarder';
import { CollectionHost } from './collection/host';
import { shardAssignment } from './scheduler/sharding';
import type { ConfigChange } from './collection/protocol';
import type { TracingPlan } from './tracing';
import { SPANS_STEP, StopDeadline } from './stop-deadline';

/** Longest wait for the last estate events and spans at stop: a dead OTLP endpoint must not hold the process. */
const FLUSH_TIMEOUT_MS = 5_000;

/**
 * The settings read only at start that differ between the running and the
 * next configuration: a reload applies everything else, and says which of
 * these wait for a restart. logLevel is one: the per-target loggers are
 * children that copied the level when they were made.
 */
function settingsNeedingRestart(started: ExporterConfig, next: ExporterConfig): string[] {
  const changed: string[] = [];
  if (next.web.listenAddress !== started.web.listenAddress) changed.push('web.listenAddress');
  if (next.web.port !== started.web.port) changed.push('web.port');
  if (Boolean(next.web.tls) !== Boolean(started.web.tls)) changed.push('web.tls (on or off)');
  if (JSON.stringify(next.tracing) !== JSON.stringify(started.tracing)) changed.push('tracing');
  if (JSON.stringify(next.otlp) !== JSON.stringify(started.otlp)) changed.push('otlp');
  if (next.logLevel !== started.logLevel) changed.push('logLevel');
  return changed;
}

/** Collection as the serving side drives it: in another thread (CollectionHost) or in this one (ExporterRuntime). */
type Collection = Pick<ExporterRuntime, 'store' | 'settings' | 'currentConfig' | 'targetNames' | 'firstRoundComplete' | 'start'> & {
  runOnce(): Promise<RunResult[]>;
  applyConfig(next: ExporterConfig): Promise<ConfigChange>;
  /** within `budgetMs` when it runs in a thread of its own (then ended); what that thread cut short (its spans) */
  stop(budgetMs?: number): Promise<string[] | void>;
};

/**
 * The running daemon: the HTTP endpoints that publish the results of
 * collection, which runs in a thread of its own (src/collection) so that a
 * scrape never waits for it. Used by the CLI, the demo and the end-to-end
 * tests.
 */
export class Exporter {
  /** collection: in its own thread, or in this one (see the constructor's inThread) */
  readonly runtime: Collection;
  readonly selfMetrics: SelfMetrics;
  readonly renderer: MetricsRenderer;
  /** the estate's events over OTLP when collecting in this thread; undefined when otlp.activities and otlp.auditLogs are off */
  readonly events: EstateEventForwarder | undefined;
  private server: Server | undefined;
  /** the web settings the server was started with (listen address, port and TLS need a restart to change) */
  private startedWeb: ExporterConfig['web'] | undefined;
  private readonly now: () => Date;
  /** the configuration the process started with: the settings read only at start come from it */
  private readonly startedConfig: ExporterConfig;

  constructor(
    config: ExporterConfig,
    private readonly logger: Logger,
    options: {
      processMetrics?: boolean;
      collectorsFor?: ConstructorParameters<typeof ExporterRuntime>[1]['collectorsFor'];
      /** the collection clock (tests run on the simulator's) */
      now?: () => Date;
      /**
       * Collect in this thread: --once (nothing is served meanwhile), and
       * tests that give their own collectors or clock (functions do not
       * cross to another thread).
       */
      inThread?: boolean;
      /** the traces the collection thread sends (src/main.ts started the same in this one) */
      tracing?: TracingPlan;
    } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.startedConfig = config;
    this.selfMetrics = new SelfMetrics(options);
    // The configuration it is given is validated and applied: the first successful load.
    this.selfMetrics.recordConfigLoad(true, this.now());
    const onFirstRound = (): void => this.selfMetrics.recordFirstRound(this.runtime.firstRoundComplete());
    if (options.inThread || options.collectorsFor || options.now) {
      this.events = forwarderFor(config, logger, (signal, count) => this.selfMetrics.onOtlpDropped(signal, count), this.now);
      this.runtime = new ExporterRuntime(config, {
        logger,
        observer: this.selfMetrics,
        ...(this.events ? { onEvents: this.events.accept.bind(this.events) } : {}),
        ...(options.collectorsFor ? { collectorsFor: options.collectorsFor } : {}),
        ...(options.now ? { now: options.now } : {}),
        onFirstRound,
      });
    } else {
      this.events = undefined;
      this.runtime = new CollectionHost(config, {
        logger,
        ...(options.tracing ? { tracing: options.tracing } : {}),
        onRequests: (events) => events.forEach((event) => this.selfMetrics.onRequest(event)),
        onOtlpDropped: (signal, count) => this.selfMetrics.onOtlpDropped(signal, count),
        onFirstRound,
        onRestart: (reason) => this.selfMetrics.onCollectionRestart(reason),
      });
    }
    this.selfMetrics.recordFirstRound(this.runtime.firstRoundComplete());
    this.renderer = new MetricsRenderer(
      () => this.runtime.store,
      this.selfMetrics,
      () => this.runtime.settings.staleAfter,
    );
  }

  /** Starts the HTTP endpoints and the collection schedule. */
  async start(): Promise<void> {
    const app = createHttpApp({
      renderer: this.renderer,
      store: () => this.runtime.store,
      targetNames: () => this.runtime.targetNames(),
      collectedElsewhere: (target) => {
        const { shard, owners } = shardAssignment(this.runtime.currentConfig);
        const owner = owners.get(target);
        return owner !== undefined && owner !== shard ? { shard: owner, ownShard: shard } : undefined;
      },
      // Ready = this process can serve scrapes: its configuration is loaded and it listens. An
      // upstream that never answers must not take the pod out of the Service (and every other
      // target with it): its state is dataprotect_up, the first round's is on / and in
      // dataprotect_exporter_first_round_complete.
      isReady: () => this.server?.listening === true,
      logger: this.logger,
      // Read per request: a reload that adds, removes or rotates users applies at once.
      protect: basicAuthGuard(() => this.runtime.currentConfig.web.basicAuthUsers, this.logger),
    });
    this.startedWeb = this.runtime.currentConfig.web;
    if (this.startedWeb.basicAuthUsers && !this.startedWeb.tls) {
      this.logger.warn('web.basicAuthUsers without web.tls: scrapers send their passwords in clear text');
    }
    // The verifying thread starts with the exporter, not with the first login: the first logins
    // (a flood, as likely as a scraper) then find it ready and do not wait for its start.
    if (this.startedWeb.basicAuthUsers) sharedBcryptWorker().start();
    this.server = await listen(app, this.startedWeb);
    this.logger.info({ address: this.address() }, 'listening');
    const { shard, shards } = shardAssignment(this.runtime.currentConfig);
    this.logger.info({ shard, shards, targets: this.runtime.targetNames() }, 'targets this replica collects');
    this.runtime.start();
  }

  /** http(s)://host:port of the listening server */
  address(): string {
    const info = this.server?.address() as AddressInfo | null | undefined;
    if (!info) return '';
    const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
    return `${this.startedWeb?.tls ? 'https' : 'http'}://${host}:${info.port}`;
  }

  /**
   * Applies a new, validated configuration: targets added, removed or changed
   * are started, stopped or restarted (the others keep their state), basic-auth
   * users apply at the next request, and the TLS certificate and key are read
   * again. Throws, before anything changes, when the new TLS files cannot be read.
   */
  async applyConfig(next: ExporterConfig): Promise<ConfigChange> {
    const started = this.startedWeb;
    if (this.server && started?.tls && next.web.tls) readTlsPair(next.web.tls); // fail before changing anything
    const change = await this.runtime.applyConfig(next);
    this.selfMetrics.recordFirstRound(this.runtime.firstRoundComplete());
    // The request counters of a removed target would otherwise be served forever.
    await Promise.all(change.removed.map((target) => this.selfMetrics.removeTarget(target)));
    for (const target of change.removed) this.events?.removeTarget(target);
    if (this.server && started?.tls && next.web.tls) reloadTls(this.server, next.web.tls);
    const needRestart = settingsNeedingRestart(this.startedConfig, next);
    if (needRestart.length > 0) this.logger.warn({ settings: needRestart }, 'changed settings take effect at the next restart');
    return change;
  }

  /** Publishes whether a reload was applied (dataprotect_config_last_reload_successful and its timestamp). */
  recordReload(outcome: 'applied' | 'rejected'): void {
    this.selfMetrics.recordConfigLoad(outcome === 'applied', this.now());
  }

  /**
   * Stops serving and collecting (the runs going on are aborted), then sends
   * the estate events still queued and, with `flushTraces`, the last spans,
   * both at once, within the deadline; what it cut short is in `deadline.cutShort`.
   */
  async stop(deadline = new StopDeadline(), flushTraces?: (timeoutMs: number) => Promise<boolean>): Promise<void> {
    let collectionCutShort: string[] = [];
    const collection = this.runtime.stop(deadline.budgetMs()).then((steps) => (collectionCutShort = steps ?? []));
    await Promise.all([
      this.server && deadline.bound('closing the HTTP connections', closeServer(this.server)),
      deadline.bound('aborting the collections and logging out', collection),
    ]);
    deadline.cutShort.push(...collectionCutShort);
    const flushMs = deadline.budgetMs(FLUSH_TIMEOUT_MS);
    await Promise.all([
      this.events && deadline.bound('sending the last estate events', this.events.shutdown(flushMs)),
      flushTraces?.(flushMs).then((flushed) => flushed || deadline.cutShort.push(SPANS_STEP)),
    ]);
  }
}
