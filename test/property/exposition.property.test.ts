/**
 * Label escaping of the exposition: any label value (asset and VM names come
 * from the sources unfiltered) survives a round trip through a parser of the
 * text format, and whole documents of such series pass `promtool check metrics`.
 */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { renderRecordChunks } from '../../src/exporters/renderer';
import { escapeLabelValue, formatHistogram, formatSample } from '../../src/exporters/format';
import type { CollectorRecord } from '../../src/snapshot/store';
import type { HistogramSample, Sample } from '../../src/collectors/types';
import { prepareResult } from '../../src/exporters/prepared';
import { promtoolCheckMetrics } from '../support/promtool';

/** Label values as a source may send them: any Unicode, with the characters the format escapes made frequent. */
const labelValue = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom('\\', '"', '\n', '\r', '\t', '{', '}', '=', ',', ' ', 'a', '\u00e9', '\u{1F600}', '#'), maxLength: 30 }),
  fc.constantFrom('', '\\', '"', '\\n', '\n', '\\\\"', 'le="+Inf"', '} 1\nfake_metric 2'),
);

/** Strips one sample line into name, labels and value, undoing the format's escapes; throws on anything malformed. */
function parseSampleLine(line: string): { name: string; labels: Record<string, string>; value: string } {
  const nameMatch = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!nameMatch) throw new Error(`no metric name in ${JSON.stringify(line)}`);
  const name = nameMatch[1] as string;
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const keyMatch = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(i));
      if (!keyMatch) throw new Error(`bad label at ${i} in ${JSON.stringify(line)}`);
      i += keyMatch[0].length;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) throw new Error(`unterminated label value in ${JSON.stringify(line)}`);
        if (c === '"') break;
        if (c === '\\') {
          const e = line[i + 1];
          if (e === '\\') value += '\\';
          else if (e === '"') value += '"';
          else if (e === 'n') value += '\n';
          else throw new Error(`bad escape \\${e} in ${JSON.stringify(line)}`);
          i += 2;
        } else {
          value += c;
          i++;
        }
      }
      i++; // closing quote
      labels[keyMatch[1] as string] = value;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new Error(`expected , or } at ${i} in ${JSON.stringify(line)}`);
    }
    i++;
  }
  if (line[i] !== ' ') throw new Error(`expected a space before the value in ${JSON.stringify(line)}`);
  return { name, labels, value: line.slice(i + 1) };
}

describe('exposition label escaping: property tests', () => {
  it('any label value survives formatSample and a text-format parser', () => {
    fc.assert(
      fc.property(labelValue, labelValue, fc.double(), (assetName, policy, value) => {
        const text = formatSample('dataprotect_asset_size_bytes', { target: 't', asset_name: assetName, policy }, value);
        expect(text.endsWith('\n')).toBe(true);
        const lines = text.slice(0, -1).split('\n');
        expect(lines).toHaveLength(1); // a newline in a value must never start a new line
        const parsed = parseSampleLine(lines[0] as string);
        expect(parsed.labels).toEqual({ target: 't', asset_name: assetName, policy });
        expect(parsed.name).toBe('dataprotect_asset_size_bytes');
        const back = Number(parsed.value.replace(/Inf$/, 'Infinity'));
        // == so that -0 reads back as 0 (the format does not keep the sign of zero)
        expect(back === value || (Number.isNaN(back) && Number.isNaN(value))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('escapeLabelValue output has no raw newline and no unescaped quote', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (value) => {
        const escaped = escapeLabelValue(value);
        expect(escaped).not.toContain('\n');
        expect(/(^|[^\\])(\\\\)*"/.test(escaped)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('documents of random series, histograms included, pass promtool check metrics', async () => {
    // One promtool run per document: a few documents of many series each.
    const documents = fc.sample(
      fc.uniqueArray(fc.tuple(fc.string({ unit: 'binary', maxLength: 24 }), labelValue, fc.nat(1e12)), { minLength: 1, maxLength: 200, selector: ([id]) => id }),
      { numRuns: 5, seed: 7 },
    );
    for (const series of documents) {
      const samples: Sample[] = series.map(([id, name, size]) => ({
        name: 'dataprotect_asset_size_bytes',
        labels: { target: 't', asset_id: id, asset_name: name, asset_type: 'VM', policy: 'Gold' },
        value: size,
      }));
      const histogram: HistogramSample = { name: 'dataprotect_activity_duration_seconds', labels: { target: 't', class_type: 'JOB', category: series[0]?.[1] ?? '' }, bounds: [1, 10], bucketCounts: [1, 2], count: 3, sum: 12 };
      const record: CollectorRecord = {
        target: 't',
        kind: 'management',
        collector: 'assets',
        scheduleIntervalSeconds: 60,
        result: prepareResult({ samples, histograms: [histogram] }),
        lastSuccessAt: 1000,
        lastRunEndAt: 1000,
        lastRunSucceeded: true,
        runs: 1,
        failures: 0,
        skippedRuns: 0,
        skippedItems: { wrong_type: 2 },
      };
      // Gzip members whose concatenation unzips to the whole text.
      const text = gunzipSync(Buffer.concat(renderRecordChunks([record], { now: 1000, staleAfterMs: 60_000 }))).toString('utf8');
      expect(text).toContain(formatHistogram(histogram));
      expect(promtoolCheckMetrics(text)).toBe('');
      // Every asset appears exactly once, with its id intact.
      const ids = text
        .split('\n')
        .filter((line) => line.startsWith('dataprotect_asset_size_bytes{'))
        .map((line) => parseSampleLine(line).labels.asset_id);
      expect(ids.sort()).toEqual(series.map(([id]) => id).sort());
    }
  });
});
