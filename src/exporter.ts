import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ExporterConfig } from './config/load';
import type { Collection, ConfigChange, ExporterRuntime } from './runtime';
import { SelfMetrics } from './exporters/self-metrics';
import { MetricsRenderer } from './exporters/renderer';
import { createHttpApp } from './exporters/app';
import { closeServer, listen } from './exporters/listener';
import { readTlsPair } from './config/tls-pair';
import { TlsRenewal } from './exporters/tls-renewal';
import { basicAuthGuard, sharedBcryptWorker } from './exporters/auth';
import { CollectionHost } from './collection/host';
import { ownedTargetNames, shardAssignment } from './scheduler/sharding';
import type { Tracing } from './tracing';
import { FLUSH_MS, SPANS_STEP, StopDeadline } from './stop-deadline';

/** The settings read only at start: a reload that changes one says it waits for a restart (per-target loggers copied logLevel). */
const START_ONLY_SETTINGS: ReadonlyArray<[name: string, read: (config: ExporterConfig) => unknown]> = [
  ['web.listenAddress', (config) => config.web.listenAddress],
  ['web.port', (config) => config.web.port],
  ['web.tls (on or off)', (config) => Boolean(config.web.tls)],
  ['tracing', (config) => JSON.stringify(config.tracing)],
  ['otlp', (config) => JSON.stringify(config.otlp)],
  ['logLevel', (config) => config.logLevel],
];

/** The running daemon: the HTTP endpoints, and collection in a thread of its own (src/collection) so that a scrape never waits for it. */
export class Exporter {
  readonly runtime: Collection;
  readonly selfMetrics: SelfMetrics;
  readonly renderer: MetricsRenderer;
  private server: Server | undefined;
  private config: ExporterConfig;
  /** the settings read only at start (web.port, web.tls on or off...) come from it */
  private readonly startedConfig: ExporterConfig;
  private readonly tracing: Tracing | undefined;
  private readonly tlsPollMs: number | undefined;
  private tlsRenewal: TlsRenewal | undefined;

  constructor(
    config: ExporterConfig,
    private readonly logger: Logger,
    options: {
      processMetrics?: boolean;
      collectorsFor?: ConstructorParameters<typeof ExporterRuntime>[1]['collectorsFor'];
      /** the collection clock (tests run on the simulator's) */
      now?: () => Date;
      /** --once (nothing is served meanwhile); implied by collectorsFor and now, as functions do not cross threads */
      inThread?: boolean;
      /** the traces src/main.ts started: the collection thread sends the same, and the stop sends the last ones */
      tracing?: Tracing;
      /** how often web.tls's files are looked at for a renewed certificate (tests) */
      tlsPollMs?: number;
    } = {},
  ) {
    this.config = this.startedConfig = config;
    this.tracing = options.tracing;
    this.tlsPollMs = options.tlsPollMs;
    this.selfMetrics = new SelfMetrics(options);
    // The configuration it is given is validated and applied: the first successful load.
    this.selfMetrics.recordConfigLoad(true, options.now?.() ?? new Date());
    const { collectorsFor, now, tracing } = options;
    if (options.inThread || collectorsFor || now) {
      // Loaded only here: the serving thread otherwise never holds the collection modules (a heap of 20 MB instead of 7, longer GC pauses).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { ExporterRuntime: InThread } = require('./runtime') as typeof import('./runtime');
      this.runtime = new InThread(config, { logger, observer: this.selfMetrics, collectorsFor, now });
    } else this.runtime = new CollectionHost(config, { logger, observer: this.selfMetrics, tracing: tracing?.plan });
    this.selfMetrics.recordFirstRound(this.runtime.firstRoundComplete());
    this.renderer = new MetricsRenderer(() => this.runtime.store, this.selfMetrics, () => this.config.collection.staleAfter);
  }

  async start(): Promise<void> {
    const app = createHttpApp({
      renderer: this.renderer,
      store: () => this.runtime.store,
      targetNames: () => ownedTargetNames(this.config),
      collectedElsewhere: (target) => {
        const { shard, owners } = shardAssignment(this.config);
        const owner = owners.get(target);
        return owner !== undefined && owner !== shard ? { shard: owner, ownShard: shard } : undefined;
      },
      // Loaded and listening: an upstream that never answers must not take the pod, and every other target, out of the Service.
      isReady: () => this.server?.listening === true,
      logger: this.logger,
      // Read per request: a reload that adds, removes or rotates users applies at once.
      protect: basicAuthGuard(() => this.config.web.basicAuthUsers, this.logger),
    });
    const { web } = this.startedConfig;
    if (web.basicAuthUsers && !web.tls) this.logger.warn('web.basicAuthUsers without web.tls: scrapers send their passwords in clear text');
    // The bcrypt thread starts now, not at the first login: the first logins (a flood, as likely as a scraper) then do not wait for it.
    if (web.basicAuthUsers) sharedBcryptWorker.start();
    this.server = await listen(app, web);
    if (web.tls) {
      const server = this.server as HttpsServer;
      this.tlsRenewal = new TlsRenewal((pair) => server.setSecureContext(pair), this.logger, this.tlsPollMs);
      this.tlsRenewal.follow(web.tls);
    }
    this.logger.info({ address: this.address() }, 'listening');
    const { shard, shards } = shardAssignment(this.config);
    this.logger.info({ shard, shards, targets: ownedTargetNames(this.config) }, 'targets this replica collects');
    this.runtime.start();
  }

  address(): string {
    const info = this.server?.address() as AddressInfo | null | undefined;
    if (!info) return '';
    const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
    return `${this.startedConfig.web.tls ? 'https' : 'http'}://${host}:${info.port}`;
  }

  /** Basic-auth users apply at the next request. The TLS pair is read first: a bad one throws before anything changes. */
  async applyConfig(next: ExporterConfig): Promise<ConfigChange> {
    // New connections get the pair read here, open ones keep theirs.
    const tls = this.server && this.startedConfig.web.tls && next.web.tls ? readTlsPair(next.web.tls) : undefined;
    this.config = next;
    // This replica's targets: one that moved to another shard is no longer counted here, as one removed.
    await this.selfMetrics.countTargets(ownedTargetNames(next));
    const change = await this.runtime.applyConfig(next);
    if (tls) (this.server as HttpsServer).setSecureContext(tls);
    if (next.web.tls) this.tlsRenewal?.follow(next.web.tls);
    const needRestart = START_ONLY_SETTINGS.filter(([, read]) => read(next) !== read(this.startedConfig)).map(([name]) => name);
    if (needRestart.length > 0) this.logger.warn({ settings: needRestart }, 'changed settings take effect at the next restart');
    return change;
  }

  /** Stops serving and collecting, then sends the last spans, within the deadline; what it cut short is in `deadline.cutShort`. */
  async stop(deadline = new StopDeadline()): Promise<void> {
    this.tlsRenewal?.stop();
    let collectionCutShort: string[] = [];
    const collection = this.runtime.stop(deadline.budgetMs()).then((steps) => (collectionCutShort = steps));
    await Promise.all([
      this.server && deadline.bound('closing the HTTP connections', closeServer(this.server)),
      deadline.bound('aborting the collections and logging out', collection),
    ]);
    deadline.cutShort.push(...collectionCutShort);
    if (this.tracing && !(await this.tracing.shutdown(deadline.budgetMs(FLUSH_MS)))) deadline.cutShort.push(SPANS_STEP);
  }
}
