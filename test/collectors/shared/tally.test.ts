import { Tally } from '../../../src/collectors/shared/tally';

describe('Tally', () => {
  it('sums per label set, in the order the sets first came', () => {
    const tally = new Tally<[string, string]>();
    tally.add(['CRITICAL', 'false']);
    tally.add(['WARNING', 'true'], 3);
    tally.add(['CRITICAL', 'false']);
    expect(tally.entries()).toEqual([
      { key: ['CRITICAL', 'false'], value: 2 },
      { key: ['WARNING', 'true'], value: 3 },
    ]);
    expect(tally.get(['WARNING', 'true'])).toBe(3);
    expect(tally.get(['WARNING', 'false'])).toBe(0);
  });

  it('keeps apart label sets whose values join to the same text', () => {
    const tally = new Tally<[string, string]>();
    tally.add(['a\u0000', 'b']);
    tally.add(['a', '\u0000b']);
    tally.add(['1:a', '']);
    tally.add(['', '1:a']);
    expect(tally.entries().map(({ value }) => value)).toEqual([1, 1, 1, 1]);
  });

  it('shows a touched label set with 0 until something is added to it', () => {
    const tally = new Tally<[string]>();
    tally.add(['MAJOR'], 0);
    expect(tally.entries()).toEqual([{ key: ['MAJOR'], value: 0 }]);
    tally.add(['MAJOR']);
    tally.add(['MAJOR'], 0);
    expect(tally.entries()).toEqual([{ key: ['MAJOR'], value: 1 }]);
  });
});
