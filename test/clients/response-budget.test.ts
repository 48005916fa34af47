/**
 * The process-wide budget of buffered response bytes: what it admits, whom it
 * refuses when full (the largest body in flight), and that every byte taken
 * comes back.
 */
import { ResponseBudget } from '../../src/clients/response-budget';

function bodies(budget: ResponseBudget, names: string[]) {
  const refused: string[] = [];
  const open = Object.fromEntries(names.map((name) => [name, budget.open(() => refused.push(name))]));
  return { open, refused };
}

describe('ResponseBudget', () => {
  it('admits chunks while they fit and gives every byte back on release', () => {
    const budget = new ResponseBudget(100);
    const { open, refused } = bodies(budget, ['a', 'b']);
    expect(open.a?.take(60)).toBe(true);
    expect(open.b?.take(40)).toBe(true);
    expect(budget.usedBytes).toBe(100);
    open.a?.release();
    open.b?.release();
    expect(budget.usedBytes).toBe(0);
    expect(refused).toEqual([]);
  });

  it('refuses the largest other body when a chunk does not fit, and only as many as needed', () => {
    const budget = new ResponseBudget(100);
    const { open, refused } = bodies(budget, ['large', 'medium', 'small']);
    open.large?.take(50);
    open.medium?.take(30);
    open.small?.take(10);
    expect(open.small?.take(15)).toBe(true);
    expect(refused).toEqual(['large']);
    expect(budget.usedBytes).toBe(55);
    expect(open.large?.take(1)).toBe(false); // a refused body takes nothing more
    expect(budget.usedBytes).toBe(55);
  });

  it('refuses the body asking when it is itself the largest, without calling its callback', () => {
    const budget = new ResponseBudget(100);
    const { open, refused } = bodies(budget, ['endless', 'page']);
    open.page?.take(20);
    expect(open.endless?.take(70)).toBe(true);
    expect(open.endless?.take(20)).toBe(false);
    expect(refused).toEqual([]);
    expect(budget.usedBytes).toBe(20);
    expect(open.page?.take(80)).toBe(true);
  });

  it('never holds more than its limit, whatever the order of chunks of many bodies', () => {
    const budget = new ResponseBudget(1000);
    const names = Array.from({ length: 12 }, (_, i) => `body${i}`);
    const { open } = bodies(budget, names);
    let peak = 0;
    for (let round = 0; round < 50; round++) {
      for (const [index, name] of names.entries()) {
        open[name]?.take(7 + ((round * 31 + index * 17) % 90));
        peak = Math.max(peak, budget.usedBytes);
      }
    }
    expect(peak).toBeLessThanOrEqual(1000);
    for (const body of Object.values(open)) body.release();
    expect(budget.usedBytes).toBe(0);
  });

  it('applies a lowered limit from the next chunk on', () => {
    const budget = new ResponseBudget(100);
    const { open, refused } = bodies(budget, ['a', 'b']);
    open.a?.take(80);
    budget.limitBytes = 50;
    expect(open.b?.take(10)).toBe(true);
    expect(refused).toEqual(['a']);
    expect(budget.usedBytes).toBe(10);
  });
});
