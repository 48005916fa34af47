/** validateOutput: the catalog check every collector result passes before it is published. */
import fc from 'fast-check';
import type { Sample } from '../../src/collectors/types';
import { validateOutput } from '../../src/scheduler/output-check';

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

  it('keeps series apart whose values differ only in where one value ends and the next begins', () => {
    const shifted = [asset('12', '3'), asset('1', '23'), asset('1:2', '3'), asset('1', '2:3')];
    expect(() => validateOutput('t', shifted, [])).not.toThrow();
    expect(() => validateOutput('t', [...shifted, asset('1', '23')], [])).toThrow(/duplicate series.*"asset_id":"1","asset_name":"23"/);
  });

  it('keeps the same label values apart in different families', () => {
    const labels = { target: 't', asset_id: '1', asset_name: 'a', asset_type: 'VM', policy: 'gold' };
    const twoFamilies: Sample[] = [asset('1', 'a'), { name: 'dataprotect_asset_rpo_seconds', labels, value: 1 }];
    expect(() => validateOutput('t', twoFamilies, [])).not.toThrow();
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
