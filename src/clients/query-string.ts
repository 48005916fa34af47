/** A list is sent comma-separated, each value encoded (the comma stays a comma, the list separator). */
type QueryValue = string | number | boolean | undefined | readonly (string | number | boolean)[];

/** A query string, every value percent-encoded (spaces as %20, never '+': the three APIs' rules); undefined values are left out. */
export function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const parts: string[] = [];
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    parts.push(`${encodeURIComponent(key)}=${values.map((v) => encodeURIComponent(String(v))).join(',')}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}
