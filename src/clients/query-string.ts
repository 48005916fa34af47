/**
 * A query string with every value percent-encoded (spaces as %20, never '+';
 * both APIs' query rules), from one or more sets of parameters in order;
 * undefined values are left out.
 */
export function queryString(...queries: ReadonlyArray<Record<string, string | number | undefined> | undefined>): string {
  const parts: string[] = [];
  for (const query of queries) {
    for (const key in query) {
      const value = query[key];
      if (value === undefined) continue;
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}
