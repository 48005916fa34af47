import type { CollectorDefinition } from '../collectors/types';

/**
 * The order of a first round: runs `run` for every item, each once the items
 * named in its collector's `after` have finished, all others at once. A name
 * that is not among the items (a collector disabled for the target) is not
 * waited for; a name listed later is not either, which is why `after` may
 * only name earlier collectors. Results are in the items' order.
 */
export function runInFirstRoundOrder<T, R>(
  items: readonly T[],
  collectorOf: (item: T) => Pick<CollectorDefinition, 'name' | 'after'> | undefined,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const finished = new Map<string, Promise<R>>();
  return Promise.all(
    items.map((item) => {
      const collector = collectorOf(item);
      const waits = (collector?.after ?? []).flatMap((name) => finished.get(name) ?? []);
      const done = Promise.all(waits).then(() => run(item));
      if (collector) finished.set(collector.name, done);
      return done;
    }),
  );
}
