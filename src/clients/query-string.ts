/** A query parameter's value: a list is sent comma-separated, each value encoded (the comma stays a comma, the list separator). */
export type QueryValue = string | number | boolean | undefined | readonly (string | number | boolean)[];

/**
 * A query string with every value percent-encoded (spaces as %20, never '+';
 * the three APIs' query rules), from one or more sets of parameters in order;
 * undefined values are left out.
 */
export function queryString(...queries: ReadonlyArray<Readonly<Record<string, QueryValue>> | undefined>): string {
  const parts: string[] = [];
  for (const query of queries) {
    for (const key in query) {
      const value = query[key];
      if (value === undefined) continue;
      const values = Array.isArray(value) ? value : [value];
      parts.push(`${encodeURIComponent(key)}=${values.map((v) => encodeURIComponent(String(v))).join(',')}`);
    }
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}
