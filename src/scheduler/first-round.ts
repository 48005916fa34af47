import type { CollectorDefinition } from '../collectors/types';

/**
 * Runs every item, each once the items its collector's `after` names have finished, the others at once; results in the items' order.
 * A name not among the items (a disabled collector) or listed later is not waited for: `after` may only name earlier collectors.
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
