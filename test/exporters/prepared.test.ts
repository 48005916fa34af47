/**
 * The background preparation of a large result (formatted and encoded in
 * time slices, gzipped on the thread pool) gives the same bytes, family by
 * family and in the same family order, as preparing it in one piece.
 */
import { gunzipSync } from 'node:zlib';
import type { HistogramSample, Sample } from '../../src/collectors/types';
import { prepareInBackground, prepareNow } from '../../src/exporters/prepared';
import type { CollectorRecord } from '../../src/snapshot/store';

const FAMILIES = ['dataprotect_asset_copies', 'dataprotect_asset_copies_size_bytes', 'dataprotect_asset_info'] as const;

function largeRecord(series: number): CollectorRecord {
  // Families interleaved, as a collector emits them asset by asset.
  const samples: Sample[] = Array.from({ length: series }, (_, i) => ({
    name: FAMILIES[i % FAMILIES.length] as Sample['name'],
    labels: { target: 't', asset_id: `id-${i}`, asset_name: `vm "${i}"\n`, location: 'LOCAL' },
    value: i,
  }));
  const histograms: HistogramSample[] = [
    { name: 'dataprotect_activity_duration_seconds', labels: { target: 't', category: 'PROTECT' }, bounds: [60, 600], bucketCounts: [1, 3], count: 4, sum: 900 },
  ];
  return { samples, histograms } as unknown as CollectorRecord;
}

describe('background preparation of a large result', () => {
  it('gives the bytes and family order of a preparation in one piece, across many slices', async () => {
    let turns = 0;
    let preparing = true;
    const count = (): void => {
      turns += 1;
      if (preparing) setImmediate(count);
    };
    setImmediate(count);
    const background = await prepareInBackground(largeRecord(90_000));
    preparing = false;
    const inOnePiece = prepareNow(largeRecord(90_000)); // another result: prepared anew, not the cached one

    expect(turns).toBeGreaterThan(2); // it did run in slices
    expect([...background.plain.keys()]).toEqual([...FAMILIES, 'dataprotect_activity_duration_seconds']);
    expect([...background.plain.keys()]).toEqual([...inOnePiece.plain.keys()]);
    for (const [family, body] of inOnePiece.plain) {
      expect((background.plain.get(family) as Buffer).equals(body)).toBe(true);
      expect(gunzipSync(background.gzip.get(family) as Buffer).equals(body)).toBe(true);
    }
  });
});
