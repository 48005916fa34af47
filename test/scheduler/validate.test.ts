/** validateOutput: the catalog check every collector result passes before it is published. */
import fc from 'fast-check';
import type { Sample } from '../../src/collectors/types';
import { metricFamily } from '../../src/metrics/catalog';
import { validateOutput, validateOutputInSlices, valuesHash } from '../../src/scheduler/validate';

const asset = (id: string, name: string): Sample => ({
  name: 'dataprotect_asset_size_bytes',
  labels: { target: 't', asset_id: id, asset_name: name, asset_type: 'VM', policy: 'gold' },
  value: 1,
});

describe('validateOutput', () => {
  it('rejects a duplicate series, and only a duplicate', () => {
    expect(() => validateOutput('t', [asset('1', 'a'), asset('2', 'a')], [])).not.toThrow();
    expect(() => validateOutput('t', [asset('1', 'a'), asset('1', 'a')], [])).toThrow(/duplicate series dataprotect_asset_size_bytes/);
  });

  it('keeps series apart whose values would join alike, NUL characters included', () => {
    // joined by NUL, ["a\0b", "c"] and ["a", "b\0c"] would give the same key
    const tricky = [asset('a\u0000b', 'c'), asset('a', 'b\u0000c'), asset('a', 'b'), asset('a\u0000', 'b')];
    expect(() => validateOutput('t', tricky, [])).not.toThrow();
    expect(() => validateOutput('t', [...tricky, asset('a', 'b\u0000c')], [])).toThrow(/duplicate series/);
  });

  it('tells apart series whose label values hash alike, and still finds their duplicates', () => {
    // Series are keyed by a 30-bit hash of their values; these two meet on it (found by search).
    const [first, second] = ['asset-27338', 'asset-686702'];
    const family = metricFamily('dataprotect_asset_size_bytes');
    expect(valuesHash(family, asset(first, 'a').labels)).toBe(valuesHash(family, asset(second, 'a').labels));
    expect(() => validateOutput('t', [asset(first, 'a'), asset(second, 'a')], [])).not.toThrow();
    expect(() => validateOutput('t', [asset(first, 'a'), asset(second, 'a'), asset(second, 'a')], [])).toThrow(/duplicate series.*"asset_id":"asset-/);
    expect(() => validateOutput('t', [asset(first, 'a'), asset(second, 'a'), asset('x', 'a'), asset(first, 'a')], [])).toThrow(/duplicate series/);
  });

  it('rejects an output exactly when two of its series have the same label values (property)', () => {
    // Few short values over a small alphabet, NUL included: duplicates and near-duplicates are common.
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '\u0000'), maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { maxLength: 12 }), (pairs) => {
        const distinct = new Set(pairs.map((pair) => JSON.stringify(pair))).size === pairs.length;
        const check = () => validateOutput('t', pairs.map(([id, name]) => asset(id, name)), []);
        if (distinct) expect(check).not.toThrow();
        else expect(check).toThrow(/duplicate series/);
      }),
      { numRuns: 500 },
    );
  });

  it('gives labels in catalog order, and keeps samples that already have it as they are', () => {
    const ordered = asset('1', 'a');
    const shuffled: Sample = { name: 'dataprotect_asset_size_bytes', labels: { policy: 'gold', asset_id: '2', target: 't', asset_type: 'VM', asset_name: 'b' }, value: 2 };
    const { samples } = validateOutput('t', [ordered, shuffled], []);
    expect(samples[0]).toBe(ordered);
    expect(Object.keys(samples[1]?.labels ?? {})).toEqual(['target', 'asset_id', 'asset_name', 'asset_type', 'policy']);
    expect(samples[1]?.labels).toEqual(shuffled.labels);
  });

  it('rejects missing, extra or non-string labels, a wrong target and non-finite values', () => {
    const { policy: _policy, ...missing } = asset('1', 'a').labels;
    expect(() => validateOutput('t', [{ ...asset('1', 'a'), labels: missing }], [])).toThrow(/needs labels/);
    expect(() => validateOutput('t', [{ ...asset('1', 'a'), labels: { ...asset('1', 'a').labels, extra: 'x' } }], [])).toThrow(/needs labels/);
    expect(() => validateOutput('t', [{ ...asset('1', 'a'), labels: { ...asset('1', 'a').labels, policy: 3 as unknown as string } }], [])).toThrow(/needs labels/);
    expect(() => validateOutput('other', [asset('1', 'a')], [])).toThrow(/expected "other"/);
    expect(() => validateOutput('t', [{ ...asset('1', 'a'), value: Number.NaN }], [])).toThrow(/non-finite/);
  });
});

describe('validateOutputInSlices', () => {
  const many = (count: number): Sample[] => Array.from({ length: count }, (_, i) => asset(String(i), `a${i}`));

  it('lets the event loop run between slices and gives what validateOutput gives', async () => {
    const samples = many(1_000);
    let turns = 0;
    const counter = (): void => {
      turns += 1;
      if (!done) setImmediate(counter);
    };
    let done = false;
    setImmediate(counter);
    // Slices of 0 ms: a turn of the loop at every look at the clock (every 32 series).
    const sliced = await validateOutputInSlices('t', samples, [], 0);
    done = true;
    // The loop turned between slices, not only after the end.
    expect(turns).toBeGreaterThanOrEqual(9);
    expect(sliced).toEqual(validateOutput('t', samples, []));
    expect(sliced.samples[0]).toBe(samples[0]);
  });

  it('rejects a duplicate that lies in a later slice than its first occurrence', async () => {
    const samples = [...many(250), asset('3', 'a3')];
    await expect(validateOutputInSlices('t', samples, [], 0)).rejects.toThrow(/duplicate series/);
  });

  it('checks in one step when the output fits in one slice', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    await validateOutputInSlices('t', many(500), [], 60_000);
    expect(turned).toBe(false);
  });
});
