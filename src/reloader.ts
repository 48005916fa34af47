import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import pLimit from 'p-limit';
import { ConfigError, type ExporterConfig } from './config/load';

export type ReloadOutcome = 'applied' | 'rejected' | 'unchanged';

export interface ReloaderDeps {
  file: string;
  /** reads and validates the file; throws ConfigError (or any Error) when it is not acceptable */
  read: (file: string) => ExporterConfig;
  /** applies a validated configuration; may throw to reject it (e.g. unreadable TLS files) */
  apply: (config: ExporterConfig) => Promise<object>;
  logger: Logger;
  /** told of every reload that was applied or rejected (for the dataprotect_config_last_reload_* series) */
  onOutcome?: (outcome: 'applied' | 'rejected') => void;
  /** quiet time after the last file event before the file is read (editors write in several steps) */
  debounceMs?: number;
}

/** Reloads on SIGHUP and file changes; it watches the directory, as editors and Kubernetes (a ConfigMap's symlink) replace the inode. */
export class ConfigReloader {
  private readonly serial = pLimit(1);
  private lastText: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ReloaderDeps) {
    this.lastText = this.readText();
  }

  /** Re-reads the file and applies it, even when its text did not change (its secrets or ${ENV} may have). */
  reload(trigger: string): Promise<ReloadOutcome> {
    return this.serial(() => this.reloadNow(trigger, false));
  }

  watch(): void {
    const file = resolve(this.deps.file);
    try {
      this.watcher = watch(dirname(file), { persistent: false }, () => this.scheduleCheck());
    } catch (error) {
      this.deps.logger.warn({ dir: dirname(file), err: error }, 'cannot watch the configuration directory; reload with SIGHUP');
      return;
    }
    this.watcher.on('error', (error) => {
      this.deps.logger.warn({ dir: dirname(file), err: error }, 'watching the configuration directory failed; reload with SIGHUP');
      void this.close();
    });
    this.deps.logger.debug({ dir: dirname(file), file: basename(file) }, 'watching the configuration file');
  }

  /** Stops watching and waits for a reload in progress. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
    await this.serial(() => undefined);
  }

  private scheduleCheck(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.serial(() => this.reloadNow('file change', true));
    }, this.deps.debounceMs ?? 300);
  }

  /** The file's text; undefined while it does not exist (an editor between delete and rename). */
  private readText(): string | undefined {
    try {
      return readFileSync(this.deps.file, 'utf8');
    } catch {
      return undefined;
    }
  }

  private async reloadNow(trigger: string, onlyIfChanged: boolean): Promise<ReloadOutcome> {
    const { logger } = this.deps;
    const text = this.readText();
    // Gone for now (being replaced): the rename that follows brings another event.
    if (onlyIfChanged && (text === undefined || text === this.lastText)) return 'unchanged';
    // Remembered whatever the outcome, so that a broken file is reported once, not at every event.
    if (text !== undefined) this.lastText = text;
    try {
      const change = await this.deps.apply(this.deps.read(this.deps.file));
      logger.info({ trigger, ...change }, 'configuration reloaded');
      this.deps.onOutcome?.('applied');
      return 'applied';
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems : [(error as Error).message];
      logger.error({ trigger, problems }, 'configuration reload rejected; the previous configuration keeps running');
      this.deps.onOutcome?.('rejected');
      return 'rejected';
    }
  }
}
