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
  /** refused requests by "api endpoint: reason" */
  private refused = new Map<string, { api: ApiName; count: number }>();

  /**
   * Counts one request refused (answered 400) for breaking a rule of the API:
   * random paging past 10,000 results, a filter outside the grammar, a query
   * parameter the endpoint does not take ...
   */
  recordRefusal(api: ApiName, endpoint: string, reason: string): void {
    const key = `${api} ${endpoint}: ${reason.slice(0, 200)}`;
    const entry = this.refused.get(key) ?? { api, count: 0 };
    entry.count += 1;
    this.refused.set(key, entry);
  }

  refusals(api?: ApiName): number {
    let sum = 0;
    for (const entry of this.refused.values()) if (api === undefined || entry.api === api) sum += entry.count;
    return sum;
  }

  /** the refusals by "api endpoint: reason", for a test's message when there should be none */
  refusalCounts(): Record<string, number> {
    return Object.fromEntries([...this.refused].map(([key, entry]) => [key, entry.count]));
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
