/**
 * A real Prometheus loads the rules of alerts/ and evaluates them without error,
 * and every dashboard query runs on it. Prometheus scrapes itself here; the
 * end-to-end test against the exporter and the simulator builds on the same harness.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dashboardFiles, loadDashboard, queriesOf, substituteVariables } from '../dashboards/dashboards';
import { allRules, ruleFiles } from '../rules/rules-files';
import { type LoadedRuleGroup, type PrometheusHarness, startPrometheus } from './prometheus-harness';

jest.setTimeout(30_000);

describe('Prometheus with the rules of alerts/', () => {
  let prometheus: PrometheusHarness;

  beforeAll(async () => {
    prometheus = await startPrometheus({
      ruleFiles: ruleFiles(),
      scrapeConfigs: (self) => [{ job_name: 'prometheus', static_configs: [{ targets: [self] }] }],
    });
  });

  afterAll(async () => {
    await prometheus?.stop();
  });

  it('lists every alert and recording rule of alerts/ in GET /api/v1/rules', async () => {
    const { alerts, records } = allRules();
    const loaded = (await prometheus.rules()).flatMap((group) => group.rules);
    const loadedAlerts = loaded.filter((rule) => rule.type === 'alerting').map((rule) => rule.name);
    const loadedRecords = loaded.filter((rule) => rule.type === 'recording').map((rule) => rule.name);
    expect(loadedAlerts.sort()).toEqual(alerts.map((rule) => rule.alert).sort());
    expect(loadedRecords.sort()).toEqual(records.map((rule) => rule.record).sort());
  });

  it('evaluates every rule without error', async () => {
    const evaluated = await prometheus.waitFor(
      async () => {
        const groups: LoadedRuleGroup[] = await prometheus.rules();
        const rules = groups.flatMap((group) => group.rules);
        return rules.every((rule) => rule.health !== 'unknown') ? rules : undefined;
      },
      15_000,
      'a first evaluation of every rule',
    );
    expect(evaluated.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.lastError}`)).toEqual([]);
  });

  it('scrapes its target and answers queries', async () => {
    const samples = await prometheus.waitFor(
      async () => {
        const result = await prometheus.query('up{job="prometheus"}');
        return result.length > 0 ? result : undefined;
      },
      15_000,
      'a first scrape',
    );
    expect(samples[0]?.value[1]).toBe('1');
    const range = await prometheus.queryRange('up', new Date(Date.now() - 60_000), new Date(), 1);
    expect(range.length).toBeGreaterThan(0);
  });

  it('puts DataProtectExporterAbsent pending (no exporter is scraped) and leaves DataProtectExporterDown quiet', async () => {
    const absent = await prometheus.waitFor(
      async () => (await prometheus.alerts()).find((alert) => alert.labels.alertname === 'DataProtectExporterAbsent'),
      15_000,
      'DataProtectExporterAbsent',
    );
    // its `for` is 10 minutes: pending, not firing
    expect(absent.state).toBe('pending');
    expect(absent.labels.severity).toBe('critical');
    expect(absent.annotations.runbook_url).toMatch(/docs\/runbook\.md#dataprotectexporterabsent$/);
    // the job scraped here is "prometheus", not dataprotect.*
    expect((await prometheus.alerts()).map((alert) => alert.labels.alertname)).not.toContain('DataProtectExporterDown');
  });

  it('runs every dashboard query without error', async () => {
    const queries = dashboardFiles().flatMap((file) => queriesOf(loadDashboard(file).json));
    expect(queries.length).toBeGreaterThan(40);
    const failures: string[] = [];
    for (const query of queries) {
      try {
        await prometheus.query(substituteVariables(query.expr));
      } catch (error) {
        failures.push(`${query.dashboard} / ${query.panel}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('reports a query error instead of an empty result', async () => {
    await expect(prometheus.query('sum(rate(up[1m])')).rejects.toThrow(/bad_data/);
  });
});

describe('startPrometheus', () => {
  it('rejects, with what Prometheus said, when a rule file is broken', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'broken-rules-'));
    try {
      const file = path.join(dir, 'broken.rules.yml');
      writeFileSync(file, 'groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: sum(\n');
      await expect(startPrometheus({ ruleFiles: [file], startTimeoutMs: 15_000 })).rejects.toThrow(/prometheus exited|broken\.rules\.yml/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
