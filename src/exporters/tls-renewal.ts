import { unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Logger } from 'pino';
import { readTlsPair } from '../config/tls-pair';

type TlsFiles = { readonly certFile: string; readonly keyFile: string };
type TlsPair = ReturnType<typeof readTlsPair>;

/** How often the files are looked at: a stat each, and cert-manager renews days before expiry. */
const DEFAULT_POLL_MS = 30_000;

/**
 * Serves a renewed certificate without a reload: cert-manager (or any renewal) rewrites the web.tls files, not the configuration.
 * The files are polled by stat (a Kubernetes Secret volume swaps a symlink, which events on the files themselves may miss); a pair
 * that fails the checks of the configuration keeps the one served, and says why.
 */
export class TlsRenewal {
  private followed: { files: TlsFiles; listener: (current: Stats, previous: Stats) => void } | undefined;

  constructor(
    private readonly serve: (pair: TlsPair) => void,
    private readonly logger: Logger,
    private readonly pollMs = DEFAULT_POLL_MS,
  ) {}

  /** Follows these files from now on (a reload may name others). */
  follow(files: TlsFiles): void {
    this.stop();
    const listener = (current: Stats, previous: Stats): void => {
      if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size) this.renew(files);
    };
    for (const file of [files.certFile, files.keyFile]) watchFile(file, { persistent: false, interval: this.pollMs }, listener);
    this.followed = { files, listener };
  }

  stop(): void {
    if (!this.followed) return;
    const { files, listener } = this.followed;
    for (const file of [files.certFile, files.keyFile]) unwatchFile(file, listener);
    this.followed = undefined;
  }

  private renew(files: TlsFiles): void {
    try {
      this.serve(readTlsPair(files));
      this.logger.info({ certFile: files.certFile }, 'the TLS files changed: new connections get the new certificate');
    } catch (error) {
      // The certificate written before its key: the key's change comes next, and is read then.
      const problems = (error as { problems?: string[] }).problems ?? [(error as Error).message];
      this.logger.warn({ problems }, 'the changed TLS files are not used: the certificate served stays');
    }
  }
}
