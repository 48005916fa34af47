/** Helpers of the tests of bodies that never end: the body itself, and a budget that records its peak. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ResponseBudget, type BudgetedBody } from '../../src/clients/response-budget';

/** Answers 200 with a JSON array that never closes, as fast as the client reads, until it stops reading. */
export function writeEndlessBody(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = '{"id":"x"},'.repeat(1500);
  const write = (): void => {
    while (res.write(chunk));
    res.once('drain', write);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  res.write('[');
  write();
}

/** Records the most bytes ever held, to assert the bound by bytes counted rather than by RSS. */
export class PeakBudget extends ResponseBudget {
  peak = 0;
  override take(body: BudgetedBody, bytes: number): boolean {
    const taken = super.take(body, bytes);
    this.peak = Math.max(this.peak, this.usedBytes);
    return taken;
  }
}
