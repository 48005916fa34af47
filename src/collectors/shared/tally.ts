import type { MetricName } from '../../metrics/catalog';
import { compositeKey } from '../../util/composite-key';
import type { Labels, Sample } from '../types';

/** The label of a record missing the field of its group (optional in the models): it still counts, and no known group is made up. */
export const UNKNOWN_LABEL = 'unknown';

/** One label set (its values, in label order) and its count: what a counting collector's state keeps. */
export type TallyEntry<K extends readonly string[]> = { readonly key: K; readonly value: number };

/** Counts by a composite label key, kept as the label values in insertion order. */
export class Tally<K extends readonly string[]> {
  private readonly counts = new Map<string, { key: K; value: number }>();

  /** `entries` of an earlier tally (a running total carried from a previous run, which stays as it was) */
  constructor(entries: Iterable<TallyEntry<K>> = []) {
    for (const { key, value } of entries) this.add(key, value);
  }

  /** An amount of 0 makes the key present (its series shows 0). Returns the tally's key array, for callers to keep instead of theirs. */
  add(key: K, amount = 1): K {
    const id = compositeKey(key);
    const entry = this.counts.get(id);
    if (entry) entry.value += amount;
    else this.counts.set(id, { key, value: amount });
    return entry?.key ?? key;
  }

  get(key: K): number {
    return this.counts.get(compositeKey(key))?.value ?? 0;
  }

  entries(): Array<TallyEntry<K>> {
    return [...this.counts.values()].map(({ key, value }) => ({ key, value }));
  }

  /** One sample per label set: `labels`, then the key's values under `names`. */
  samples(name: MetricName, labels: Labels, names: { readonly [I in keyof K]: string }): Sample[] {
    return [...this.counts.values()].map(({ key, value }) => {
      const all: Record<string, string> = { ...labels };
      names.forEach((label, index) => (all[label] = key[index] as string));
      return { name, labels: all, value };
    });
  }
}
