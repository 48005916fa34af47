import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ExporterConfig } from './config/load';
import { ExporterRuntime } from './runtime';
import { SelfMetrics } from './exporters/prometheus';
import { MetricsRenderer } from './exporters/renderer';
import { createHttpApp } from './exporters/server';
import { closeServer, listen, reloadTls } from './exporters/http-server';
import { readTlsPair } from './config/tls-pair';
import { basicAuthGuard } from './exporters/auth';

/** What a reload changed: targets started, stopped and restarted. */
export type ConfigChange = Awaited<ReturnType<ExporterRuntime['applyConfig']>>;

/**
 * The running daemon: the collection runtime plus the HTTP endpoints that
 * publish its snapshot. Used by the CLI, the demo and the end-to-end tests.
 */
export class Exporter {
  readonly runtime: ExporterRuntime;
  readonly selfMetrics: SelfMetrics;
  readonly renderer: MetricsRenderer;
  private server: Server | undefined;
  /** the web settings the server was started with (listen address, port and TLS need a restart to change) */
  private startedWeb: ExporterConfig['web'] | undefined;

  constructor(
    config: ExporterConfig,
    private readonly logger: Logger,
    options: { processMetrics?: boolean; collectorsFor?: ConstructorParameters<typeof ExporterRuntime>[1]['collectorsFor'] } = {},
  ) {
    this.selfMetrics = new SelfMetrics(options);
    this.runtime = new ExporterRuntime(config, {
      logger,
      observer: this.selfMetrics,
      ...(options.collectorsFor ? { collectorsFor: options.collectorsFor } : {}),
    });
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
      isReady: () => this.runtime.isReady(),
      logger: this.logger,
      // Read per request: a reload that adds, removes or rotates users applies at once.
      protect: basicAuthGuard(() => this.runtime.currentConfig.web.basicAuthUsers, this.logger),
    });
    this.startedWeb = this.runtime.currentConfig.web;
    if (this.startedWeb.basicAuthUsers && !this.startedWeb.tls) {
      this.logger.warn('web.basicAuthUsers without web.tls: scrapers send their passwords in clear text');
    }
    this.server = await listen(app, this.startedWeb);
    this.logger.info({ address: this.address() }, 'listening');
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
    const previous = this.runtime.currentConfig;
    const change = await this.runtime.applyConfig(next);
    // The request counters of a removed target would otherwise be served forever.
    await Promise.all(change.removed.map((target) => this.selfMetrics.removeTarget(target)));
    if (this.server && started) {
      if (started.tls && next.web.tls) reloadTls(this.server, next.web.tls);
      if (next.web.listenAddress !== started.listenAddress || next.web.port !== started.port || Boolean(next.web.tls) !== Boolean(started.tls)) {
        this.logger.warn('web.listenAddress, web.port and turning web.tls on or off take effect at the next restart');
      }
    }
    if (JSON.stringify(next.tracing) !== JSON.stringify(previous.tracing)) {
      this.logger.warn('tracing settings take effect at the next restart');
    }
    return change;
  }

  async stop(): Promise<void> {
    if (this.server) await closeServer(this.server);
    await this.runtime.stop();
  }
}
