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
import { spawnCli, writeConfig } from '../support/cli-process';
import { testRules } from '../rules/promtool';

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

// A --once run starts with no history (failures_total 1, no last success when it fails) and runs at the timer's
// pace, not its schedule's: the shipped DataProtectCollectorFailing and DataProtectProtectionUnmonitored cannot fire
// on what textfile mode writes, and DataProtectCollectorDataStale fires between the runs of a collector scheduled
// more often than the timer. The Textfile mode section must give the rules that do fit, and say how to keep the
// stale-data alert quiet.
describe('textfile mode and the alerts on its files', () => {
  const TIMER_MINUTES = 15;
  const HOURS = 2;
  let sim: RunningSimulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: { assets: 5, auditEntries: 5, activitiesPerDay: 5, auditEntriesPerDay: 5 } });
    dir = mkdtempSync(join(tmpdir(), 'dp-textfile-alerts-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The file of one real --once run: a User-role account, whose cloud-dr-sessions collector is refused (403) at every run. */
  async function onceFile(schedule: string): Promise<string> {
    const config = join(dir, 'config.yaml');
    const output = join(dir, 'dataprotect.prom');
    const collectors = Object.fromEntries(
      ['assets', 'latest-copies', 'copy-metrics', 'copies', 'activities', 'audit-logs', 'protection-policies', 'compliance', 'inventory-sources']
        .map((name) => [name, { enabled: false }]),
    );
    const target = { name: 'm', kind: 'management', url: sim.urls.management, username: 'monitor', password: '${SIM_PASSWORD}', maxAttempts: 1 };
    writeConfig(config, [{ ...target, collectors: { ...collectors, alerts: { schedule }, 'cloud-dr-sessions': { schedule } } }]);
    const cli = spawnCli(['--config', config, '--once', '--output', output], { SIM_PASSWORD: sim.password });
    expect(await cli.exited).toBe(1);
    return readFileSync(output, 'utf8');
  }

  /** The collector's series of the file as Prometheus scrapes them every minute from node_exporter, the timer writing a new file every TIMER_MINUTES (each run at its own time). */
  function inputSeries(file: string, collector: string): Array<{ series: string; values: string }> {
    const families = ['success', 'last_success_timestamp_seconds', 'failures_total', 'schedule_interval_seconds'];
    return families.flatMap((family) => {
      const line = file.split('\n').find((text) => text.startsWith(`dataprotect_collector_${family}{target="m",collector="${collector}"}`));
      if (line === undefined) return [];
      const [series, value] = line.split(' ') as [string, string];
      const values = Array.from({ length: HOURS * 60 + 1 }, (_, minute) =>
        family === 'last_success_timestamp_seconds' ? String(Math.floor(minute / TIMER_MINUTES) * TIMER_MINUTES * 60) : value,
      );
      return [{ series, values: values.join(' ') }];
    });
  }

  async function firing(file: string, collector: string, documented: string): Promise<string[]> {
    const rulesFile = join(dir, 'textfile.rules.yml');
    writeFileSync(rulesFile, documented);
    const alerts = [...new Set(allRules().alerts.map((rule) => rule.alert)), ...(parse(documented) as { groups: Array<{ rules: Array<{ alert?: string }> }> }).groups.flatMap((group) => group.rules.map((rule) => rule.alert ?? ''))];
    const fired: string[] = [];
    for (const alertname of alerts.filter((name) => name !== '' && name !== 'DataProtectExporterAbsent')) {
      const testFile = join(dir, 'textfile.test.yml');
      // evaluated a minute before a run, when the file is the oldest it gets
      const tests = {
        rule_files: [join(ROOT, 'alerts', 'dataprotect.rules.yml'), rulesFile],
        evaluation_interval: '1m',
        tests: [{ interval: '1m', input_series: inputSeries(file, collector), alert_rule_test: [{ eval_time: `${HOURS * 60 - 1}m`, alertname, exp_alerts: [] }] }],
      };
      writeFileSync(testFile, JSON.stringify(tests));
      const run = await testRules([testFile], dir);
      if (run.code !== 0) fired.push(alertname);
    }
    return fired;
  }

  it("operations.md's rules alert on a collector that fails at every run, and nothing fires on a healthy one", async () => {
    const textfile = section(read('docs/operations.md'), '## Textfile mode');
    const block = /^( *)```yaml\n(\1groups:[\s\S]*?)\1```/m.exec(textfile);
    const documented = block?.[2]?.split('\n').map((line) => line.slice((block[1] as string).length)).join('\n');
    expect(documented).toBeDefined();
    const schedule = /`collectors\.<name>\.schedule`[^`]*`([^`]+)`/.exec(textfile)?.[1];
    expect(schedule).toBe(`*/${TIMER_MINUTES} * * * *`);
    const file = await onceFile(schedule as string);
    expect(file).toContain('dataprotect_collector_success{target="m",collector="cloud-dr-sessions"} 0');
    expect(file).toContain('dataprotect_collector_success{target="m",collector="alerts"} 1');
    expect(await firing(file, 'cloud-dr-sessions', documented as string)).toEqual(['DataProtectTextfileCollectorFailing']);
    expect(await firing(file, 'alerts', documented as string)).toEqual([]);
  }, 120_000);
});
