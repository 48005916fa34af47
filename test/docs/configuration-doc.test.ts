/**
 * docs/configuration.md and config/example.yaml say what the code does: every
 * collector with its default schedule (generated from the registry), and the
 * statuses maxAttempts retries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTORS } from '../../src/collectors/registry';
import { RETRIABLE_STATUS } from '../../src/clients/retry';
import { withCollectorsTable } from '../../scripts/metrics-doc';
import { usage } from '../../simulator/cli';

const ROOT = join(__dirname, '..', '..');
const configurationDoc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('lists every collector with its default schedule, as generated (`npm run docs:metrics`)', () => {
    expect(configurationDoc).toBe(withCollectorsTable(configurationDoc));
    for (const [kind, list] of Object.entries(COLLECTORS)) {
      for (const collector of list) expect(configurationDoc).toContain(`| ${kind} | \`${collector.name}\` | \`${collector.defaultSchedule}\` |`);
    }
  });

  it('names the statuses maxAttempts retries exactly as the client does, and so does config/example.yaml', () => {
    const statuses = [...RETRIABLE_STATUS].sort((a, b) => a - b).join(', ');
    const docLine = configurationDoc.split('\n').find((line) => line.startsWith('| `maxAttempts` |'));
    expect(docLine).toContain(`on ${statuses} and network errors`);
    const example = readFileSync(join(ROOT, 'config', 'example.yaml'), 'utf8');
    const exampleLine = example.split('\n').find((line) => /^\s*maxAttempts:/.test(line));
    expect(exampleLine).toContain(`on ${statuses} and network errors`);
  });
});

describe('README', () => {
  it('promises of the simulator command line only what its --help offers (fault injection is set in code)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## The simulator'), readme.indexOf('\n## ', readme.indexOf('## The simulator') + 1));
    const offered = new Set([...usage().matchAll(/--[a-z-]+/g)].map((match) => match[0]));
    const promised = [...section.matchAll(/--[a-z-]+/g)].map((match) => match[0]);
    expect(promised.filter((flag) => !offered.has(flag))).toEqual([]);
    expect([...offered].filter((flag) => /fault|inject|error|latency|hang/.test(flag))).toEqual([]);
    // so the section may mention fault injection only as something done in code
    for (const sentence of section.split(/(?<=\.)\s/).filter((text) => /fault injection/i.test(text))) expect(sentence).toMatch(/not a command-line option|in code/);
  });
});
