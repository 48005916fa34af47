/** Keeps the first record per key: duplicate series break the whole exposition. Returns the duplicates' keys for the collector to log. */
export function uniqueBy<T>(records: readonly T[], key: (record: T) => string): { unique: T[]; duplicates: string[] } {
  const first = new Map<string, T>();
  const duplicates: string[] = [];
  for (const record of records) {
    const k = key(record);
    if (first.has(k)) duplicates.push(k);
    else first.set(k, record);
  }
  return { unique: [...first.values()], duplicates };
}
