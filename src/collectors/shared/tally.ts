/**
 * The label value of a record counted without the field that names its
 * group (the models leave severity, status, location ... optional): the
 * record still counts, so totals stay true, and no known group is made up.
 */
export const UNKNOWN_LABEL = 'unknown';

/**
 * Counts by a composite label key, kept as the label values in insertion
 * order. Each value is prefixed with its length in the map key, so two
 * different label sets never share a count, whatever characters the API's
 * values hold.
 */
export class Tally<K extends readonly string[]> {
  private readonly counts = new Map<string, { key: K; value: number }>();

  add(key: K, amount = 1): void {
    const id = idOf(key);
    const entry = this.counts.get(id);
    if (entry) entry.value += amount;
    else this.counts.set(id, { key, value: amount });
  }

  /** makes sure the key is present (with 0), so a series can show 0 instead of disappearing */
  touch(key: K): void {
    this.add(key, 0);
  }

  get(key: K): number {
    return this.counts.get(idOf(key))?.value ?? 0;
  }

  entries(): Array<{ key: K; value: number }> {
    return [...this.counts.values()];
  }
}

function idOf(key: readonly string[]): string {
  let id = '';
  for (const value of key) id += `${value.length}:${value}`;
  return id;
}
