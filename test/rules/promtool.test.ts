/**
 * The rule files pass `promtool check rules`, and the unit tests of
 * test/rules/*.test.yml (a firing case and a near miss for every alert) pass
 * `promtool test rules`. Mutated thresholds must make those unit tests fail:
 * proof that the near misses sit close to the thresholds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { parseThresholds, renderRules, TEMPLATE_FILE, THRESHOLDS_FILE, type Thresholds } from '../../scripts/build-rules';
import { checkRules, promtoolPath, runPromtool, testRules } from './promtool';
import { loadGroups, loadRuleTest, RULE_TESTS_DIR, ruleFiles, ruleTestFiles } from './rules-files';

describe('promtool', () => {
  it('is installed', () => {
    expect(promtoolPath()).toMatch(/promtool$/);
    expect(runPromtool(['--version']).output).toMatch(/promtool, version \d+\.\d+/);
  });

  it.each(ruleFiles().map((file) => [path.relative(RULE_TESTS_DIR, file), file]))('check rules accepts %s', (_name, file) => {
    const result = checkRules([file]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('check rules rejects invalid PromQL (the check above can fail)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rules-'));
    try {
      const file = path.join(dir, 'broken.rules.yml');
      writeFileSync(file, stringify({ groups: [{ name: 'broken', rules: [{ alert: 'Broken', expr: 'sum by (target (up)' }] }] }));
      const result = checkRules([file]);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/FAILED|error/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the unit-test files', () => {
    expect(ruleTestFiles().map((file) => path.basename(file)).sort()).toEqual(
      expect.arrayContaining(['activities.test.yml', 'exporter.test.yml', 'protection.test.yml', 'replication.test.yml', 'sla.test.yml', 'storage.test.yml']),
    );
  });

  // promtool evaluates the groups of one step in a random order unless told: an alert reading a
  // recorded series would see this step's value in one run and the previous step's in the next.
  it.each(ruleTestFiles().map((file) => [path.basename(file), file]))('%s orders every group, recordings first', (_name, file) => {
    const groups = ruleFiles().flatMap((rules) => loadGroups(rules));
    const order = (parse(readFileSync(file, 'utf8')) as { group_eval_order?: string[] }).group_eval_order ?? [];
    expect([...order].sort()).toEqual(groups.map((group) => group.name).sort());
    const recording = new Set(groups.filter((group) => group.rules.every((rule) => 'record' in rule)).map((group) => group.name));
    const firstAlerting = order.findIndex((name) => !recording.has(name));
    expect(order.slice(firstAlerting).filter((name) => recording.has(name))).toEqual([]);
  });

  it.concurrent.each(ruleTestFiles().map((file) => [path.basename(file)]))('test rules passes %s', async (file) => {
    const result = await testRules([file], RULE_TESTS_DIR);
    expect(result.output).not.toContain('FAILED');
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });
});

describe('the unit tests notice a changed threshold', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rules-mutation-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  type Mutation = readonly [testFile: string, key: string, value: string | number, alert: string, why: string];
  const mutations: Mutation[] = [
    ['protection.test.yml', 'assets.outOfRpoFor', '20m', 'DataProtectAssetOutOfRPO', 'a-late would fire at 85 min'],
    ['protection.test.yml', 'assets.withoutCopyFor', '90m', 'DataProtectAssetWithoutCopy', 'a-none would fire at 100 min'],
    ['protection.test.yml', 'policies.allOutOfRpoMinAssets', 3, 'DataProtectPolicyAllAssetsOutOfRPO', 'Gold (2 assets) would stay quiet'],
    ['sla.test.yml', 'policies.slaAttainment30d', 0.98, 'DataProtectPolicySLAAttainmentLow', 'Gold (98.1 % over 30 days) would stay quiet'],
    ['sla.test.yml', 'policies.slaMinHistory', '12h', 'DataProtectPolicySLAAttainmentLow', 'Bronze would fire at 23 h'],
    ['activities.test.yml', 'activities.failureRatio', 0.2, 'DataProtectActivitiesFailing', '16.7 % failed would stay quiet'],
    ['activities.test.yml', 'activities.failureRatio', 0.09, 'DataProtectActivitiesFailing', 'mgmt2 (9.1 %) would fire'],
    ['replication.test.yml', 'replication.vmPausedFor', '30m', 'DataProtectReplicationVMPaused', 'erp-db would not fire by 25 min'],
    ['replication.test.yml', 'replication.clusterDisconnectedFor', '4m', 'DataProtectReplicationClusterDisconnected', 'rpa-north (5 min) would fire'],
    ['storage.test.yml', 'storage.usedWarningRatio', 0.84, 'DataProtectStorageAlmostFull', 'sys-3 (84.9 %) would fire'],
    ['storage.test.yml', 'storage.fillHorizonDays', 8, 'DataProtectStorageFillingUp', 'sys-d (7.4 days) would fire'],
    ['storage.test.yml', 'storage.replicationLag', '57m', 'DataProtectStorageReplicationLagging', 'ctx-2 (58 min) would fire'],
    ['exporter.test.yml', 'exporter.collectorStaleMin', '3m', 'DataProtectCollectorDataStale', 'copies (4 min) would fire'],
    ['exporter.test.yml', 'exporter.targetDownFor', '9m', 'DataProtectTargetDown', 'dd-mc (10 min) would fire'],
    ['exporter.test.yml', 'exporter.collectorFailingFor', '3m', 'DataProtectCollectorFailing', 'compliance (next run 4 min late) would fire'],
    ['exporter.test.yml', 'exporter.collectorFailingFor', '15m', 'DataProtectCollectorFailing', 'copy-metrics would not fire by 40 min'],
    ['exporter.test.yml', 'exporter.collectorFailingRuns', 1, 'DataProtectCollectorFailing', 'one failed run of latest-copies would fire'],
    ['unmonitored.test.yml', 'exporter.protectionUnmonitoredAfter', '10m', 'DataProtectProtectionUnmonitored', 'assets would not fire by 70 min'],
    ['unmonitored.test.yml', 'exporter.protectionUnmonitoredFor', '15m', 'DataProtectProtectionUnmonitored', 'assets would not fire by 70 min'],
    ['unmonitored.test.yml', 'exporter.protectionCollectors', 'assets|clusters', 'DataProtectProtectionUnmonitored', 'dd capacity would not fire'],
    ['exporter.test.yml', 'exporter.jobRegex', '.*', 'DataProtectExporterDown', 'job node would fire'],
    ['exporter.test.yml', 'exporter.exporterAbsentFor', '20m', 'DataProtectExporterAbsent', 'would not fire by 15 min'],
    ['exporter.test.yml', 'exporter.configReloadFailedFor', '4m', 'DataProtectConfigReloadFailed', 'exporter-b (5 min) would fire'],
    ['exporter.test.yml', 'exporter.collectionRestarts', 2, 'DataProtectCollectionRestarting', 'exporter-b (2 restarts) would fire'],
    ['exporter.test.yml', 'exporter.collectionRestartsWindow', '30m', 'DataProtectCollectionRestarting', 'exporter-a (3 restarts in 50 min) would not fire'],
    ['exporter.test.yml', 'exporter.collectionRestartingFor', '10m', 'DataProtectCollectionRestarting', 'exporter-a would not fire by 65 min'],
  ];

  it.concurrent.each(mutations)('%s fails with %s: %s (%s, %s)', async (testFile, key, value, alert) => {
    const thresholds = parseThresholds(readFileSync(THRESHOLDS_FILE, 'utf8'));
    const [section, field] = key.split('.') as [keyof Thresholds, string];
    (thresholds[section] as Record<string, string | number>)[field] = value;
    const name = `${key}-${value}`.replace(/[^A-Za-z0-9-]/g, '_');
    const rulesFile = path.join(dir, `${name}.rules.yml`);
    writeFileSync(rulesFile, renderRules(readFileSync(TEMPLATE_FILE, 'utf8'), thresholds));
    // Only the test groups about this alert: each promtool run costs seconds.
    const unitTest = loadRuleTest(path.join(RULE_TESTS_DIR, testFile));
    const relevant = unitTest.tests.filter((group) => group.alert_rule_test?.some((test) => test.alertname === alert));
    expect(relevant.length).toBeGreaterThan(0);
    Object.assign(unitTest, { rule_files: [rulesFile], tests: relevant });
    const unitTestFile = `${name}.${testFile}`;
    writeFileSync(path.join(dir, unitTestFile), stringify(unitTest));

    const result = await testRules([unitTestFile], dir);
    expect(result.output).toContain('FAILED');
    expect(result.output).toContain(`alertname: ${alert}`);
    expect(result.code).not.toBe(0);
  });
});
