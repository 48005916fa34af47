/**
 * What README and docs/ state about the code, checked against the code: the
 * shipped configurations leave tracing to the environment, configuration.md
 * documents every `otlp` key and sharding as src/scheduler/sharding.ts does it,
 * the runbook points to where the default schedules are, metrics.md names the
 * series without `target`, README names the dashboards that need the
 * recording rules, and `npm run bench -- --help` prints its usage.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { StorageClient } from '../../src/clients/storage/client';
import { parseConfig, type TargetConfig } from '../../src/config/load';
import { replicationContextsCollector } from '../../src/collectors/storage/replication';
import { METRIC_FAMILIES, metricFamily } from '../../src/metrics/catalog';
import { assignShards } from '../../src/scheduler/sharding';
import { dashboardFiles, loadDashboard, queriesOf } from '../dashboards/dashboards';
import { allRules } from '../rules/rules-files';
import { clientFor, runCollector, samplesNamed, simulatorTarget } from '../support/collect';

const ROOT = join(__dirname, '..', '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
/** The text of a markdown section, from its heading to the next heading of the same level or above (outside code blocks). */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.indexOf(' ');
  let inFence = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end] as string;
    if (line.startsWith('```')) inFence = !inFence;
    else if (!inFence && new RegExp(`^#{1,${level}} `).test(line)) break;
  }
  return lines.slice(start, end).join('\n');
}

describe('the shipped configurations', () => {
  const configMap = parse(read('deploy/kubernetes/base/configmap.yaml')) as { data: Record<string, string> };
  const shipped: Array<[string, string]> = [
    ['config/example.yaml', read('config/example.yaml')],
    ['deploy/kubernetes/base/configmap.yaml', configMap.data['config.yaml'] as string],
  ];

  it.each(shipped)('%s leaves tracing.enabled unset: a false there would override OTEL_EXPORTER_OTLP_ENDPOINT', (_file, text) => {
    const config = parse(text) as { tracing?: { enabled?: boolean } | null };
    expect(config.tracing?.enabled).toBeUndefined();
  });
});

describe('docs/configuration.md', () => {
  const doc = read('docs/configuration.md');

  it('documents every key of the otlp section, with its default', () => {
    const { otlp } = parseConfig({ targets: [{ name: 'a', kind: 'replication', url: 'http://a', username: 'u', password: 'p' }] });
    const flat = Object.entries(otlp).flatMap(([key, value]) =>
      typeof value === 'object' ? Object.keys(value).map((inner) => `${key}.${inner}`) : [key],
    );
    const otlpSection = section(doc, '## `otlp`');
    for (const key of flat) expect(otlpSection).toMatch(new RegExp(`^\\| \`${key.replace('.', '\\.')}\` \\|`, 'm'));
    expect(otlpSection).toContain(`| \`maxQueueSize\` | \`${otlp.maxQueueSize}\` |`);
  });

  it('describes sharding as the code does it: ranking, loads within one, independent of the order', () => {
    const text = section(doc, '## `sharding`');
    expect(text).toMatch(/ranks the replicas/);
    expect(text).toMatch(/differ by one at most/);
    const names = Array.from({ length: 10 }, (_, i) => `target-${i}`);
    const loads = [...assignShards(names, 3).values()].reduce((counts, shard) => counts.set(shard, (counts.get(shard) ?? 0) + 1), new Map<number, number>());
    expect(Math.max(...loads.values()) - Math.min(...loads.values())).toBeLessThanOrEqual(1);
    expect(assignShards([...names].reverse(), 3)).toEqual(assignShards(names, 3));
  });
});

describe('docs/runbook.md', () => {
  it('sends readers to configuration.md, where the collectors table is, for the default schedules', () => {
    const lines = read('docs/runbook.md').split('\n\n').filter((paragraph) => /default schedules/.test(paragraph));
    expect(lines.length).toBeGreaterThan(0);
    for (const paragraph of lines) {
      expect(paragraph).toMatch(/\(configuration\.md#targets\)/);
      expect(paragraph).not.toMatch(/metrics\.md/);
    }
    expect(read('docs/configuration.md')).toContain('| kind | collector | default schedule |');
  });
});

describe('DataProtectStorageReplicationLagging and a replication context never synchronised', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    const size = { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5, replicatedVms: 5, replicationClusters: 1, storageSystems: 1 };
    sim = await startSimulator({ seed: 31, size, startTime: new Date('2026-06-15T09:40:00Z') });
  });
  afterAll(async () => {
    await sim.close();
  });

  // The collector gives such a context no lag series ("now minus 1970" is no lag), so the alert on that series cannot fire
  // for it: the runbook and the catalog must say so, not promise a very large lag and an alert.
  it('has no lag series, and the runbook and the catalog say so', async () => {
    const target = simulatorTarget(sim, 'storage', { maxAttempts: 1 });
    const client = clientFor(target as TargetConfig & { kind: 'storage' }) as StorageClient;
    const system = sim.estate.storage.systems[0]!;
    sim.estate.storage.setContextSyncEpoch(system.id, 1, 0);
    try {
      const result = await runCollector(replicationContextsCollector, { target, client, now: () => sim.clock.now() });
      const ofContext = (name: string) => samplesNamed(result, name).filter((s) => s.labels.system_id === system.id && s.labels.context === '1');
      expect(ofContext('dataprotect_storage_replication_state').length).toBeGreaterThan(0);
      expect(ofContext('dataprotect_storage_replication_lag_seconds')).toEqual([]);
    } finally {
      sim.estate.storage.setContextSyncEpoch(system.id, 1, undefined);
      await client.close();
    }
    const runbook = section(read('docs/runbook.md'), '### DataProtectStorageReplicationLagging');
    expect(runbook).not.toMatch(/never synchronised reports a very large lag/);
    expect(runbook).toMatch(/never synchronised[^.]*has no lag series[^.]*does not fire/);
    expect(metricFamily('dataprotect_storage_replication_lag_seconds').help).toMatch(/[Aa]bsent for a context never synchronised/);
  });
});

describe('docs/metrics.md', () => {
  it('names, before its tables, every family whose series carry no target label', () => {
    const header = read('docs/metrics.md').split('\n## ')[0] as string;
    const withoutTarget = METRIC_FAMILIES.filter((family) => !(family.labels as readonly string[]).includes('target'));
    expect(withoutTarget.length).toBeGreaterThan(0);
    for (const family of withoutTarget) expect(header).toContain(`\`${family.name}\``);
  });
});

describe('README', () => {
  it('names the dashboards that read the recording rules', () => {
    const recorded = new Set(allRules().records.map((rule) => rule.record));
    const needRules = dashboardFiles()
      .map((file) => loadDashboard(file).json)
      .filter((dashboard) => queriesOf(dashboard).some((query) => [...recorded].some((name) => query.expr.includes(name))))
      .map((dashboard) => dashboard.title.replace(/^DataProtect \/ /, ''));
    expect(needRules.length).toBeGreaterThan(0);
    const text = section(read('README.md'), '## Alerts and dashboards');
    for (const title of needRules) expect(text).toContain(title);
    expect(text).toMatch(/recording rules/);
  });
});

describe('the runbook on an exporter that does not start', () => {
  it('gives the exit code the exporter ends with on an invalid configuration', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-exit-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, 'targets:\n  - { name: a, kind: management, url: ftp://x, username: u, password: p }\n');
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', '--config', config], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    rmSync(dir, { recursive: true, force: true });
    expect(run.stderr).toMatch(/^targets\[0\]\.url: /m);
    const advice = section(read('docs/runbook.md'), '### DataProtectExporterDown');
    const documented = /exit code (\d+)\s+at\s+start\s+is\s+a\s+configuration\s+error/.exec(advice)?.[1];
    expect(Number(documented)).toBe(run.code);
  });
});

describe('npm run bench', () => {
  const bench = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: ROOT }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it('prints its usage with --help, and a wrong option with the usage, never a stack trace', async () => {
    const help = await bench(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run bench -- /);
    const wrong = await bench(['--bogus']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^unknown option --bogus\nusage: /);
    expect(wrong.stderr).not.toMatch(/^\s+at /m);
  });
});
