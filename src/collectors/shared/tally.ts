import { compositeKey } from '../../util/composite-key';

/**
 * The label value of a record counted without the field that names its
 * group (the models leave severity, status, location ... optional): the
 * record still counts, so totals stay true, and no known group is made up.
 */
export const UNKNOWN_LABEL = 'unknown';

/** Counts by a composite label key, kept as the label values in insertion order. */
export class Tally<K extends readonly string[]> {
  private readonly counts = new Map<string, { key: K; value: number }>();

  add(key: K, amount = 1): void {
    const id = compositeKey(key);
    const entry = this.counts.get(id);
    if (entry) entry.value += amount;
    else this.counts.set(id, { key, value: amount });
  }

  /** makes sure the key is present (with 0), so a series can show 0 instead of disappearing */
  touch(key: K): void {
    this.add(key, 0);
  }

  get(key: K): number {
    return this.counts.get(compositeKey(key))?.value ?? 0;
  }

  entries(): Array<{ key: K; value: number }> {
    return [...this.counts.values()];
  }
}
