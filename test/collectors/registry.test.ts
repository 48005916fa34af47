import { COLLECTORS } from '../../src/collectors/registry';
import { KNOWN_COLLECTORS } from '../../src/collectors/names';

describe('collector registry', () => {
  it('the names the configuration check knows are the registry\'s, in its order', () => {
    const registered = Object.fromEntries(Object.entries(COLLECTORS).map(([kind, collectors]) => [kind, collectors.map((c) => c.name)]));
    expect(KNOWN_COLLECTORS).toEqual(registered);
  });

  it.each(Object.entries(COLLECTORS))('%s: every `after` names a collector of the same kind listed before it (a first round cannot wait in a cycle)', (_kind, collectors) => {
    const seen = new Set<string>();
    for (const collector of collectors) {
      for (const name of collector.after ?? []) expect({ collector: collector.name, after: name, listedBefore: seen.has(name) }).toEqual({ collector: collector.name, after: name, listedBefore: true });
      seen.add(collector.name);
    }
  });

  it('the copies collector waits for the asset list and the copy fingerprints', () => {
    const copies = COLLECTORS.management.find((c) => c.name === 'copies');
    expect(copies?.after).toEqual(['assets', 'copy-metrics']);
  });
});
