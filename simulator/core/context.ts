import type { SimulatedClock } from './clock';
import type { Faults } from './faults';
import type { SeededRandom } from './random';

/** What every API app needs besides its estate. */
export interface SimContext {
  clock: SimulatedClock;
  faults: Faults;
  random: SeededRandom;
  username: string;
  password: string;
  tokenTtlSeconds: number;
  /**
   * The management service's least-privilege account: same password, the
   * User role (no cloud DR sessions). Undefined: only the admin account.
   */
  userRoleUsername?: string;
  /** the management service refuses query parameters an endpoint does not document (400); default on */
  strictRestValidation?: boolean;
}
