import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METRIC_FAMILIES } from '../../src/metrics/catalog';
import { emitters, metricsMarkdown } from '../../src/metrics/docs';
import { CONTRACT_LABEL_ADDITIONS } from '../rules/contract';

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

  it('contains every metric of the public contract with its labels (and the labels agreed since)', () => {
    const contract = readFileSync(join(__dirname, '../../../shared/metrics-contract.md'), 'utf8');
    const rows = [...contract.matchAll(/^\| (dataprotect_[a-z_, ]+) \| (\w+) \| ([a-z_, ]+) \|/gm)];
    expect(rows.length).toBeGreaterThan(40);
    for (const [, names, type, labels] of rows) {
      for (const name of names!.split(',').map((n) => n.trim())) {
        const family = METRIC_FAMILIES.find((f) => f.name === name);
        const agreed = [...labels!.split(',').map((l) => l.trim()), ...(CONTRACT_LABEL_ADDITIONS[name] ?? [])];
        expect({ name, type: family?.type, labels: [...(family?.labels ?? [])].sort() }).toEqual({ name, type, labels: agreed.sort() });
      }
    }
  });
});
