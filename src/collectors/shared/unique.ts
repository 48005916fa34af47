/**
 * Keeps the first record per key. Two records with one key would give two
 * series with identical labels, which breaks the whole exposition; the
 * duplicates' keys are returned so the collector can log them.
 */
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
