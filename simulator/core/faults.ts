import type { ApiName, FaultInjector, FaultRule } from '../types';

interface ActiveRule {
  rule: FaultRule;
  /** matching requests seen so far */
  seen: number;
  /** times the fault was applied */
  applied: number;
}

/**
 * The fault rules tests install at run time. Every rule counts the requests it
 * matches (for its `skip`/`times`); the first rule, in the order added, whose
 * fault is due for a request is the one applied.
 */
export class Faults implements FaultInjector {
  tokenExpiresAfterRequests?: number;
  replicationMaxConcurrent?: number;
  private rules: ActiveRule[] = [];

  add(rule: FaultRule): void {
    this.rules.push({ rule, seen: 0, applied: 0 });
  }

  /** removes every rule and resets the knobs (token expiry by count, replication concurrency limit) */
  clear(): void {
    this.rules = [];
    this.tokenExpiresAfterRequests = undefined;
    this.replicationMaxConcurrent = undefined;
  }

  /** the fault to apply to this request, or undefined; consumes the rule's skip/times counters */
  match(api: ApiName, method: string, pathname: string): FaultRule['fault'] | undefined {
    for (const active of this.rules) {
      const { rule } = active;
      if (!matches(rule, api, method, pathname)) continue;
      if (rule.times !== undefined && active.applied >= rule.times) continue;
      active.seen += 1;
      if (active.seen <= (rule.skip ?? 0)) continue;
      active.applied += 1;
      return rule.fault;
    }
    return undefined;
  }
}

function matches(rule: FaultRule, api: ApiName, method: string, pathname: string): boolean {
  if (rule.api !== api) return false;
  if (rule.method !== undefined && rule.method.toUpperCase() !== method.toUpperCase()) return false;
  if (rule.path === undefined) return true;
  if (typeof rule.path === 'string') return pathname.includes(rule.path);
  rule.path.lastIndex = 0; // a /g or /y RegExp keeps state between test() calls
  return rule.path.test(pathname);
}
