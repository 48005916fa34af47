import type { Logger } from 'pino';
import type { SkippedItem } from '../clients/run-requests';
import { compositeKey } from '../util/composite-key';

/** Items logged one by one per run at most: an upstream that breaks every item of a large listing must not flood the logs. */
const MAX_LINES_PER_RUN = 20;

/** The listing items one collector's runs skip, each logged (never its content) unless the previous run skipped it for the same problem. */
export class SkippedItemLog {
  private previous = new Set<string>();

  /** Logs what is new in this run's skips; returns them counted by reason. */
  report(logger: Logger, skipped: readonly SkippedItem[]): Map<string, number> {
    const byReason = new Map<string, number>();
    const current = new Set<string>();
    let fresh = 0;
    for (const item of skipped) {
      byReason.set(item.reason, (byReason.get(item.reason) ?? 0) + 1);
      const key = compositeKey([item.endpoint, item.id ?? '', item.problem]);
      current.add(key);
      if (this.previous.has(key) || ++fresh > MAX_LINES_PER_RUN) continue;
      const { endpoint, id, problem, reason } = item;
      logger.warn({ endpoint, id, problem, reason }, 'listing item skipped: it fails its checks');
    }
    if (fresh > MAX_LINES_PER_RUN) {
      const more = fresh - MAX_LINES_PER_RUN;
      logger.warn({ more }, 'more listing items skipped for new problems (counted in dataprotect_collector_skipped_items_total)');
    }
    this.previous = current;
    return byReason;
  }
}
