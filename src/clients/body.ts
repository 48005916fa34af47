import type { Dispatcher } from 'undici';
import { ApiError } from './errors';
import type { ResponseBudget } from './response-budget';
import { formatBytes } from '../util/bytes';

/** The body as text; one over `limit` (announced or actual) or taken back by the shared budget is a `protocol` error, not a full heap. */
export function readBody(
  response: Dispatcher.ResponseData,
  endpoint: string,
  limit: number,
  budget: ResponseBudget | undefined,
): Promise<string> {
  const refusal = (reason: string): ApiError => new ApiError('protocol', endpoint, reason, response.statusCode);
  const tooLarge = (): ApiError => refusal(`response body larger than ${formatBytes(limit)} (maxResponseBytes)`);
  const body = response.body;
  if (Number(response.headers['content-length'] ?? 0) > limit) {
    body.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error?: unknown, text?: string): void => {
      if (settled) return;
      settled = true;
      budgeted?.release();
      if (error === undefined) return resolve(text as string);
      body.destroy();
      reject(error);
    };
    const shared = `the bodies filling the ${formatBytes(budget?.limitBytes ?? 0)} buffered across all targets (maxBufferedResponseBytes)`;
    const refusedByBudget = (): void => settle(refusal(`response body stopped at ${formatBytes(size)}, the largest of ${shared}`));
    const budgeted = budget?.open(refusedByBudget);
    // Event listeners rather than `for await`: no promise per chunk.
    body.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (size + chunk.length > limit) return settle(tooLarge());
      if (budgeted && !budgeted.take(chunk.length)) return refusedByBudget();
      size += chunk.length;
      chunks.push(chunk);
    });
    body.once('end', () => settle(undefined, Buffer.concat(chunks, size).toString('utf8')));
    body.once('error', (error) => settle(error));
  });
}
