/**
 * Checkpoints a new collection thread resumes from are for its first jobs only: a collector a reload enables later starts afresh,
 * as it does when no thread restarted in between.
 */
import { parseConfig } from '../../src/config/load';
import { defineCollector } from '../../src/collectors/types';
import { ExporterRuntime, type Checkpoints } from '../../src/runtime';
import { silentLogger } from '../support/collect';

/** A collector of a counter (so it is checkpointed) that records the state each run starts from. */
function countingCollector(seen: unknown[]) {
  return defineCollector<'management', { watermark: number }>({
    name: 'counter',
    kind: 'management',
    description: 'a counting collector',
    defaultSchedule: '0 0 1 1 *',
    metrics: ['dataprotect_audit_events_total'],
    async collect(ctx) {
      seen.push(ctx.state);
      return { samples: [], state: { watermark: Date.now() } };
    },
  });
}

it('a collector disabled when the thread starts, enabled by a later reload, does not resume from a checkpoint', async () => {
  const seen: unknown[] = [];
  const counter = countingCollector(seen);
  const base = { name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' };
  const weekAgo = { state: { watermark: Date.now() - 7 * 86_400_000 }, collectingSince: new Date(Date.now() - 8 * 86_400_000) };
  const resumeFrom: Checkpoints = new Map([['t', new Map([['counter', weekAgo]])]]);
  const runtime = new ExporterRuntime(parseConfig({ targets: [{ ...base, collectors: { counter: { enabled: false } } }] }), {
    logger: silentLogger,
    collectorsFor: () => [counter],
    resumeFrom,
  });
  try {
    await runtime.applyConfig(parseConfig({ targets: [base] }));
    await runtime.runOnce();
    expect(seen).toEqual([undefined]); // not the week-old watermark and totals
  } finally {
    await runtime.stop();
  }
});

it('a collector enabled when the thread starts resumes from its checkpoint', async () => {
  const seen: unknown[] = [];
  const counter = countingCollector(seen);
  const resumeFrom: Checkpoints = new Map([['t', new Map([['counter', { state: { watermark: 0 }, collectingSince: new Date() }]])]]);
  const runtime = new ExporterRuntime(parseConfig({ targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }] }), {
    logger: silentLogger,
    collectorsFor: () => [counter],
    resumeFrom,
  });
  try {
    await runtime.runOnce();
    expect(seen).toEqual([{ watermark: 0 }]);
  } finally {
    await runtime.stop();
  }
});
