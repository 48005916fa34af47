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
}
