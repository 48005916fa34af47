import type { ApiName, RequestStats } from '../types';

interface Entry {
  api: ApiName;
  method: string;
  pathname: string;
  count: number;
  bytes: number;
}

/** Request counts and response bytes per (API, method, pathname), for tests and benchmarks. */
export class Stats implements RequestStats {
  private entries = new Map<string, Entry>();
  private refused = new Map<ApiName, number>();

  /** counts one request refused for breaking a rule of the API (e.g. random paging past 10,000 results) */
  recordRefusal(api: ApiName): void {
    this.refused.set(api, (this.refused.get(api) ?? 0) + 1);
  }

  refusals(api?: ApiName): number {
    let sum = 0;
    for (const [name, count] of this.refused) if (api === undefined || name === api) sum += count;
    return sum;
  }

  /** counts one request and adds `bytes` of response body */
  record(api: ApiName, method: string, pathname: string, bytes: number): void {
    const entry = this.entry(api, method, pathname);
    entry.count += 1;
    entry.bytes += bytes;
  }

  /** adds response body bytes to an already counted request (the body is sent after the request is counted) */
  addBytes(api: ApiName, method: string, pathname: string, bytes: number): void {
    this.entry(api, method, pathname).bytes += bytes;
  }

  total(api?: ApiName): number {
    let sum = 0;
    for (const e of this.entries.values()) if (api === undefined || e.api === api) sum += e.count;
    return sum;
  }

  count(api: ApiName, path: string | RegExp, method?: string): number {
    let sum = 0;
    for (const e of this.entries.values()) {
      if (e.api !== api) continue;
      if (method !== undefined && e.method !== method.toUpperCase()) continue;
      if (typeof path === 'string' ? !e.pathname.includes(path) : !testRegExp(path, e.pathname)) continue;
      sum += e.count;
    }
    return sum;
  }

  bytes(api?: ApiName): number {
    let sum = 0;
    for (const e of this.entries.values()) if (api === undefined || e.api === api) sum += e.bytes;
    return sum;
  }

  reset(): void {
    this.entries.clear();
    this.refused.clear();
  }

  private entry(api: ApiName, method: string, pathname: string): Entry {
    const upper = method.toUpperCase();
    const key = `${api} ${upper} ${pathname}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { api, method: upper, pathname, count: 0, bytes: 0 };
      this.entries.set(key, entry);
    }
    return entry;
  }
}

function testRegExp(re: RegExp, s: string): boolean {
  re.lastIndex = 0;
  return re.test(s);
}
