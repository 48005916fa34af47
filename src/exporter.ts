import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ExporterConfig } from './config/load';
import { ExporterRuntime } from './runtime';
import { SelfMetrics } from './exporters/prometheus';
import { MetricsRenderer } from './exporters/renderer';
import { createHttpApp } from './exporters/server';
import { closeServer, listen } from './exporters/http-server';

/**
 * The running daemon: the collection runtime plus the HTTP endpoints that
 * publish its snapshot. Used by the CLI, the demo and the end-to-end tests.
 */
export class Exporter {
  readonly runtime: ExporterRuntime;
  readonly selfMetrics: SelfMetrics;
  readonly renderer: MetricsRenderer;
  private server: Server | undefined;

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
    });
    this.server = await listen(app, this.runtime.currentConfig.web);
    this.logger.info({ address: this.address() }, 'listening');
    this.runtime.start();
  }

  /** http(s)://host:port of the listening server */
  address(): string {
    const info = this.server?.address() as AddressInfo | null | undefined;
    if (!info) return '';
    const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
    return `${this.runtime.currentConfig.web.tls ? 'https' : 'http'}://${host}:${info.port}`;
  }

  async stop(): Promise<void> {
    if (this.server) await closeServer(this.server);
    await this.runtime.stop();
  }
}
