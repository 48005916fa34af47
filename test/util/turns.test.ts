import { forEachInTurns } from '../../src/util/turns';
import { workPerTurn } from '../support/turns';

describe('forEachInTurns', () => {
  it('visits every item in order with its index, a chunk per turn of the event loop', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => `item ${i}`);
    const seen: Array<[string, number]> = [];
    const turns = workPerTurn(() => seen.length);
    await forEachInTurns(items, (item, index) => seen.push([item, index]));
    const perTurn = turns.stop();
    expect(seen).toEqual(items.map((item, index) => [item, index]));
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(items.length / 5);
    expect(perTurn.filter((count) => count > 0).length).toBeGreaterThanOrEqual(5);
  });

  it('stops at the first item that throws, and rejects with its error', async () => {
    const visited: number[] = [];
    const failing = forEachInTurns(
      Array.from({ length: 5_000 }, (_, i) => i),
      (item) => {
        if (item === 2_500) throw new Error('item 2500 is malformed');
        visited.push(item);
      },
    );
    await expect(failing).rejects.toThrow('item 2500 is malformed');
    expect(visited).toHaveLength(2_500);
  });

  it('takes an empty list at once', async () => {
    const each = jest.fn();
    await forEachInTurns([], each);
    expect(each).not.toHaveBeenCalled();
  });
});
