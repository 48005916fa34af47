/** validateOutput: the catalog check every collector result passes before it is published. */
import fc from 'fast-check';
import type { Sample } from '../../src/collectors/types';
import { validateOutput as validate } from '../../src/scheduler/output-check';

const asset = (id: string, name: string): Sample => ({
  name: 'dataprotect_asset_size_bytes',
  labels: { target: 't', asset_id: id, asset_name: name, asset_type: 'VM', policy: 'gold' },
  value: 1,
});

/** The check as a promise: what it throws becomes a rejection the assertions read. */
const validateOutput = async (...args: Parameters<typeof validate>): Promise<ReturnType<typeof validate>> => validate(...args);

describe('validateOutput', () => {
  it('rejects a duplicate series, and only a duplicate', async () => {
    await expect(validateOutput('t', [asset('1', 'a'), asset('2', 'a')], [])).resolves.toBeDefined();
    await expect(validateOutput('t', [asset('1', 'a'), asset('1', 'a')], [])).rejects.toThrow(/duplicate series dataprotect_asset_size_bytes/);
  });

  it('keeps series apart whose values would join alike, NUL characters included', async () => {
    // joined by NUL, ["a\0b", "c"] and ["a", "b\0c"] would give the same key
    const tricky = [asset('a\u0000b', 'c'), asset('a', 'b\u0000c'), asset('a', 'b'), asset('a\u0000', 'b')];
    await expect(validateOutput('t', tricky, [])).resolves.toBeDefined();
    await expect(validateOutput('t', [...tricky, asset('a', 'b\u0000c')], [])).rejects.toThrow(/duplicate series/);
  });

  it('keeps series apart whose values differ only in where one value ends and the next begins', async () => {
    const shifted = [asset('12', '3'), asset('1', '23'), asset('1:2', '3'), asset('1', '2:3')];
    await expect(validateOutput('t', shifted, [])).resolves.toBeDefined();
    await expect(validateOutput('t', [...shifted, asset('1', '23')], [])).rejects.toThrow(/duplicate series.*"asset_id":"1","asset_name":"23"/);
  });

  it('keeps the same label values apart in different families', async () => {
    const labels = { target: 't', asset_id: '1', asset_name: 'a', asset_type: 'VM', policy: 'gold' };
    const twoFamilies: Sample[] = [asset('1', 'a'), { name: 'dataprotect_asset_rpo_seconds', labels, value: 1 }];
    await expect(validateOutput('t', twoFamilies, [])).resolves.toBeDefined();
  });

  it('rejects an output exactly when two of its series have the same label values (property)', async () => {
    // Few short values over a small alphabet, NUL included: duplicates and near-duplicates are common.
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '\u0000'), maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(value, value), { maxLength: 12 }), async (pairs) => {
        const distinct = new Set(pairs.map((pair) => JSON.stringify(pair))).size === pairs.length;
        const check = validateOutput('t', pairs.map(([id, name]) => asset(id, name)), []);
        if (distinct) await expect(check).resolves.toBeDefined();
        else await expect(check).rejects.toThrow(/duplicate series/);
      }),
      { numRuns: 500 },
    );
  });

  it('gives labels in catalog order, and keeps samples that already have it as they are', async () => {
    const ordered = asset('1', 'a');
    const shuffled: Sample = { name: 'dataprotect_asset_size_bytes', labels: { policy: 'gold', asset_id: '2', target: 't', asset_type: 'VM', asset_name: 'b' }, value: 2 };
    const { samples } = await validateOutput('t', [ordered, shuffled], []);
    expect(samples[0]).toBe(ordered);
    expect(Object.keys(samples[1]?.labels ?? {})).toEqual(['target', 'asset_id', 'asset_name', 'asset_type', 'policy']);
    expect(samples[1]?.labels).toEqual(shuffled.labels);
  });

  it('rejects missing, extra or non-string labels, a wrong target and non-finite values', async () => {
    const { policy: _policy, ...missing } = asset('1', 'a').labels;
    await expect(validateOutput('t', [{ ...asset('1', 'a'), labels: missing }], [])).rejects.toThrow(/needs labels/);
    await expect(validateOutput('t', [{ ...asset('1', 'a'), labels: { ...asset('1', 'a').labels, extra: 'x' } }], [])).rejects.toThrow(/needs labels/);
    await expect(validateOutput('t', [{ ...asset('1', 'a'), labels: { ...asset('1', 'a').labels, policy: 3 as unknown as string } }], [])).rejects.toThrow(/needs labels/);
    await expect(validateOutput('other', [asset('1', 'a')], [])).rejects.toThrow(/expected "other"/);
    await expect(validateOutput('t', [{ ...asset('1', 'a'), value: Number.NaN }], [])).rejects.toThrow(/non-finite/);
  });
});
