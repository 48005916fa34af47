import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METRIC_FAMILIES } from '../../src/metrics/catalog';
import { emitters, metricsMarkdown } from '../../scripts/metrics-doc';
import { PUBLIC_METRICS } from './public-metrics';

describe('docs/metrics.md', () => {
  it('is what the catalog generates (run `npm run docs:metrics` after changing metrics)', () => {
    expect(readFileSync(join(__dirname, '../../docs/metrics.md'), 'utf8')).toBe(metricsMarkdown());
  });

  it('lists every family some collector or the runtime emits, and only those', () => {
    const documented = new Set(METRIC_FAMILIES.map((family) => family.name));
    const emitted = emitters();
    expect([...emitted.keys()].filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !emitted.has(name))).toEqual([]);
  });

  it('keeps every metric of the public interface with its type and labels', () => {
    const catalog = new Map(METRIC_FAMILIES.map((family) => [family.name, { name: family.name, type: family.type, labels: family.labels }]));
    for (const metric of PUBLIC_METRICS) expect(catalog.get(metric.name) ?? { name: metric.name, missing: true }).toEqual(metric);
  });
});
