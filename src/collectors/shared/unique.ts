/** Keeps the first record per key: duplicate series break the whole exposition. Returns the duplicates' keys for the collector to log. */
export function uniqueBy<T>(records: readonly T[], key: (record: T) => string): { unique: T[]; duplicates: string[] } {
  const seen = new Set<string>();
  const unique: T[] = [];
  const duplicates: string[] = [];
  for (const record of records) {
    const k = key(record);
    if (seen.has(k)) duplicates.push(k);
    else {
      seen.add(k);
      unique.push(record);
    }
  }
  return { unique, duplicates };
}
