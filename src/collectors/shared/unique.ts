/**
 * Keeps the first record per key: two records with one key would give two series with identical labels, which breaks the whole
 * exposition. The duplicates' keys are returned for the collector to log.
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
