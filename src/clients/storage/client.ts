import type { TargetConfig } from '../../config/load';
import { httpCoreFor, type ClientDeps } from '../core-factory';
import type { HttpCore } from '../http';

/** Client of the storage API. */
export class StorageClient {
  protected readonly http: HttpCore;

  constructor(
    readonly target: TargetConfig,
    protected readonly deps: ClientDeps,
  ) {
    this.http = httpCoreFor(target, deps);
  }

  /** Logs out (where the API has sessions) and closes the connections. */
  async close(): Promise<void> {
    await this.http.close();
  }
}
