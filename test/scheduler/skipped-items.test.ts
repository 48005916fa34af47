import pino from 'pino';
import { Writable } from 'node:stream';
import type { SkippedItem } from '../../src/clients/run-requests';
import { SkippedItemLog } from '../../src/scheduler/skipped-items';

const skipped = (id: string, problem = 'content[0].size: expected number, got string'): SkippedItem => ({ endpoint: '/api/v2/assets', id, problem, reason: 'wrong_type' });

function logger(lines: Array<Record<string, unknown>>): pino.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

describe('SkippedItemLog', () => {
  it('logs an item when it is first skipped for a problem, again when the problem changes or the item comes back', () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = new SkippedItemLog();
    const runs: SkippedItem[][] = [[skipped('a')], [skipped('a')], [skipped('a', 'content[0].size: expected number, got null')], [], [skipped('a')]];
    const logged = runs.map((run) => {
      const before = lines.length;
      log.report(logger(lines), run);
      return lines.slice(before).map((line) => `${String(line.id)} ${String(line.problem)}`);
    });
    expect(logged).toEqual([
      ['a content[0].size: expected number, got string'],
      [],
      ['a content[0].size: expected number, got null'],
      [],
      ['a content[0].size: expected number, got string'],
    ]);
    expect(lines[0]).toMatchObject({ msg: 'listing item skipped: it fails its checks', endpoint: '/api/v2/assets', reason: 'wrong_type' });
  });

  it('counts every skip by reason, and logs at most 20 new items a run and how many more', () => {
    const lines: Array<Record<string, unknown>> = [];
    const items = Array.from({ length: 25 }, (_, i) => skipped(`id-${i}`));
    const counts = new SkippedItemLog().report(logger(lines), [...items, { ...skipped('m'), reason: 'missing_field' }]);
    expect(counts).toEqual(new Map([['wrong_type', 25], ['missing_field', 1]]));
    expect(lines).toHaveLength(21);
    expect(lines[20]).toMatchObject({ more: 6 });
  });
});
