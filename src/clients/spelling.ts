/**
 * The two spellings of the storage and replication APIs: the seeds' (our contract, the simulator's default) and the real
 * products' (`dd-systems`, `rp-clusters`, `rpClusterName` ...). A target names its spelling or says `apiSpelling: auto`.
 */
import type { Logger } from 'pino';
import { ApiError, isStatusError } from './errors';

export type ApiSpelling = 'seed' | 'product';

/**
 * Which spelling one target speaks, remembered for the client's life; a configured one is never probed. Auto: a spelled path
 * family's first request is tried in the seed spelling, on 404 in the product one; the first answer that is not a 404 fixes
 * the spelling (logged once). Other failures fix nothing, so a target down at its first contact is probed again at the next.
 */
export class SpellingResolver {
  private found: ApiSpelling | undefined;

  constructor(
    configured: ApiSpelling | 'auto' | undefined,
    private readonly api: string,
    private readonly logger: Logger,
  ) {
    this.found = configured === 'auto' ? undefined : configured;
  }

  get known(): ApiSpelling | undefined {
    return this.found;
  }

  /** Runs `attempt` in the known spelling, or finds the spelling with it (see the class). */
  async resolve<T>(attempt: (spelling: ApiSpelling) => Promise<T>): Promise<T> {
    if (this.found) return attempt(this.found);
    const notFound: ApiError[] = [];
    for (const spelling of ['seed', 'product'] as const) {
      try {
        const value = await attempt(spelling);
        // Two calls may find it at once: one says so.
        if (this.found === undefined) {
          this.found = spelling;
          this.logger.info({ api: this.api, spelling }, `${this.api} API spelling detected: ${spelling}`);
        }
        return value;
      } catch (error) {
        if (!isStatusError(error, 404)) throw error;
        notFound.push(error);
      }
    }
    // Named by the seed's path, the contract's, and saying both were asked: a wrong URL looks like this.
    const [seed, product] = notFound as [ApiError, ApiError];
    const what = `HTTP 404, and 404 in the product spelling too (${product.endpoint})`;
    throw new ApiError('status', seed.endpoint, what, 404, { cause: product });
  }
}
