/** prepareResult: the catalog check every collector result passes before it is published, and the bytes it is served as. */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { HistogramSample, Sample } from '../../src/collectors/types';
import { familyMember, prepareResult } from '../../src/exporters/prepared';
import { fnv1aUtf16 } from '../../src/util/fnv1a';

const asset = (id: string, name: string): Sample => ({
  name: 'dataprotect_asset_size_bytes',
  labels: { target: 't', asset_id: id, asset_name: name, asset_type: 'VM', policy: 'gold' },
  value: 1,
});

/** The check as a promise: what it throws becomes a rejection the assertions read. */
const prepared = async (target: string, samples: Sample[], histograms: HistogramSample[]) => prepareResult({ samples, histograms }, target);

/** One family's text, as a scrape would unzip it. */
const familyText = (result: ReturnType<typeof prepareResult>, family: string): string =>
  gunzipSync(familyMember(result, family) ?? Buffer.alloc(0)).toString('utf8');

describe('prepareResult', () => {
  it('rejects a duplicate series, and only a duplicate', async () => {
    await expect(prepared('t', [asset('1', 'a'), asset('2', 'a')], [])).resolves.toBeDefined();
    await expect(prepared('t', [asset('1', 'a'), asset('1', 'a')], [])).rejects.toThrow(/duplicate series dataprotect_asset_size_bytes/);
  });

  it('keeps series apart whose values would join alike, NUL characters included', async () => {
    // joined by NUL, ["a\0b", "c"] and ["a", "b\0c"] would give the same key
    const tricky = [asset('a\u0000b', 'c'), asset('a', 'b\u0000c'), asset('a', 'b'), asset('a\u0000', 'b')];
    await expect(prepared('t', tricky, [])).resolves.toBeDefined();
    await expect(prepared('t', [...tricky, asset('a', 'b\u0000c')], [])).rejects.toThrow(/duplicate series/);
  });

  it('keeps series apart whose values differ only in where one value ends and the next begins', async () => {
    const shifted = [asset('12', '3'), asset('1', '23'), asset('1:2', '3'), asset('1', '2:3')];
    await expect(prepared('t', shifted, [])).resolves.toBeDefined();
    await expect(prepared('t', [...shifted, asset('1', '23')], [])).rejects.toThrow(/duplicate series .*asset_id="1",asset_name="23"/);
  });

  it('keeps apart two series whose texts hash alike, and still finds either one given twice', async () => {
    // Among 2^17 random ids, a pair whose texts collide in a 30-bit hash is all but certain (the seed below finds one by the 10,100th).
    const textOf = (id: string) => `dataprotect_asset_size_bytes{target="t",asset_id="${id}",asset_name="a",asset_type="VM",policy="gold"}`;
    const ids = fc.sample(fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 12, maxLength: 12 }), { numRuns: 2 ** 17, seed: 1 });
    const idByHash = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (const id of ids) {
      const hash = fnv1aUtf16(textOf(id));
      const earlier = idByHash.get(hash);
      if (earlier !== undefined && earlier !== id) pair ??= [earlier, id];
      idByHash.set(hash, id);
    }
    const [first, second] = pair ?? ['', ''];
    expect(fnv1aUtf16(textOf(first))).toBe(fnv1aUtf16(textOf(second)));
    await expect(prepared('t', [asset(first, 'a'), asset(second, 'a')], [])).resolves.toBeDefined();
    await expect(prepared('t', [asset(first, 'a'), asset(second, 'a'), asset(first, 'a')], [])).rejects.toThrow(`duplicate series ${textOf(first)}`);
    await expect(prepared('t', [asset(first, 'a'), asset(second, 'a'), asset(second, 'a')], [])).rejects.toThrow(`duplicate series ${textOf(second)}`);
  });

  it('keeps the same label values apart in different families', async () => {
    const labels = { target: 't', asset_id: '1', asset_name: 'a', asset_type: 'VM', policy: 'gold' };
    const twoFamilies: Sample[] = [asset('1', 'a'), { name: 'dataprotect_asset_rpo_seconds', labels, value: 1 }];
    await expect(prepared('t', twoFamilies, [])).resolves.toBeDefined();
  });

  it('rejects an output exactly when two of its series have the same label values (property)', async () => {
    // Few short values over a small alphabet, NUL included: duplicates and near-duplicates are common.
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '\u0000'), maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(value, value), { maxLength: 12 }), async (pairs) => {
        const distinct = new Set(pairs.map((pair) => JSON.stringify(pair))).size === pairs.length;
        const check = prepared('t', pairs.map(([id, name]) => asset(id, name)), []);
        if (distinct) await expect(check).resolves.toBeDefined();
        else await expect(check).rejects.toThrow(/duplicate series/);
      }),
      { numRuns: 500 },
    );
  });

  it('writes labels in catalog order, whatever order a sample gives them in', async () => {
    const shuffled: Sample = { name: 'dataprotect_asset_size_bytes', labels: { policy: 'gold', asset_id: '2', target: 't', asset_type: 'VM', asset_name: 'b' }, value: 2 };
    const result = await prepared('t', [asset('1', 'a'), shuffled], []);
    expect(familyText(result, 'dataprotect_asset_size_bytes')).toBe(
      'dataprotect_asset_size_bytes{target="t",asset_id="1",asset_name="a",asset_type="VM",policy="gold"} 1\n' +
        'dataprotect_asset_size_bytes{target="t",asset_id="2",asset_name="b",asset_type="VM",policy="gold"} 2\n',
    );
    expect(result.series).toBe(2);
  });

  it('serves a family of many series as members that unzip to its lines, in order, and nothing of the other families', async () => {
    // 20,000 lines of about 100 bytes: 2 MB of text, more than one chunk; non-ASCII names take more bytes than characters.
    const names = Array.from({ length: 20_000 }, (_, index) => `vm-\u00e9\u{1F600}-${index}`);
    const rpo: Sample = { name: 'dataprotect_asset_rpo_seconds', labels: asset('x', 'y').labels, value: 60 };
    const result = await prepared('t', [...names.map((name, index) => asset(String(index), name)), rpo], []);
    const text = familyText(result, 'dataprotect_asset_size_bytes');
    const lines = text.split('\n').slice(0, -1);
    expect(lines).toHaveLength(names.length);
    expect(lines.every((line, index) => line.includes(`asset_id="${index}",asset_name="${names[index]}"`))).toBe(true);
    expect(familyText(result, 'dataprotect_asset_rpo_seconds')).toBe(`dataprotect_asset_rpo_seconds{target="t",asset_id="x",asset_name="y",asset_type="VM",policy="gold"} 60\n`);
    // the members together are one gzip stream of both families
    expect(gunzipSync(Buffer.from(result.bytes)).toString('utf8')).toBe(text + familyText(result, 'dataprotect_asset_rpo_seconds'));
    expect(result.series).toBe(names.length + 1);
  });

  it('rejects missing, extra or non-string labels, a wrong target and non-finite values', async () => {
    const { policy: _policy, ...missing } = asset('1', 'a').labels;
    await expect(prepared('t', [{ ...asset('1', 'a'), labels: missing }], [])).rejects.toThrow(/needs labels/);
    await expect(prepared('t', [{ ...asset('1', 'a'), labels: { ...asset('1', 'a').labels, extra: 'x' } }], [])).rejects.toThrow(/needs labels/);
    await expect(prepared('t', [{ ...asset('1', 'a'), labels: { ...asset('1', 'a').labels, policy: 3 as unknown as string } }], [])).rejects.toThrow(/needs labels/);
    await expect(prepared('other', [asset('1', 'a')], [])).rejects.toThrow(/expected "other"/);
    await expect(prepared('t', [{ ...asset('1', 'a'), value: Number.NaN }], [])).rejects.toThrow(/non-finite/);
  });

  it('rejects a histogram given as a sample and the other way round, and buckets that do not match their bounds', async () => {
    const labels = { target: 't', class_type: 'JOB', category: 'PROTECT' };
    const histogram: HistogramSample = { name: 'dataprotect_activity_duration_seconds', labels, bounds: [1, 10], bucketCounts: [1, 2], count: 3, sum: 12 };
    await expect(prepared('t', [], [histogram])).resolves.toBeDefined();
    await expect(prepared('t', [], [{ ...histogram, bucketCounts: [1] }])).rejects.toThrow(/2 bounds, 1 bucket counts/);
    await expect(prepared('t', [{ name: histogram.name, labels, value: 1 }], [])).rejects.toThrow(/is a histogram, returned as a sample/);
    await expect(prepared('t', [], [{ ...histogram, name: 'dataprotect_asset_size_bytes', labels: asset('1', 'a').labels }])).rejects.toThrow(
      /is a gauge, returned as a histogram/,
    );
    await expect(prepared('t', [], [histogram, histogram])).rejects.toThrow(/duplicate series dataprotect_activity_duration_seconds/);
  });
});
