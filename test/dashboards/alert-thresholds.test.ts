/**
 * A panel whose colours stand for an alert turns red where that alert's condition starts to hold,
 * and not before: the Freshness bars of the Exporter health dashboard against
 * DataProtectCollectorDataStale (3 schedule intervals, and at least collectorStaleMin, 5 min).
 *
 * promtool evaluates, on collectors of a one-minute and a ten-minute schedule, the panel's query
 * against its red threshold and the alert's expression as shipped: each must hold for the same
 * collectors. A one-minute collector last successful 200 s ago is 3.3 intervals old and not stale
 * (under 5 min); 400 s ago it is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { testRules } from '../rules/promtool';
import { allRules } from '../rules/rules-files';
import { dashboardFiles, loadDashboard, panelsOf, substituteVariables } from './dashboards';

const STEPS = 130;
const EVAL_SECONDS = 7200;
const constant = (value: number): string => `${value}x${STEPS}`;

/** Collectors: schedule interval and age of the last success at the evaluation time (2 h), and whether the alert's condition holds. */
const COLLECTORS = [
  { collector: 'clusters', interval: 60, age: 200, stale: false },
  { collector: 'vms', interval: 60, age: 400, stale: true },
  { collector: 'capacity', interval: 600, age: 1700, stale: false },
  { collector: 'assets', interval: 600, age: 2000, stale: true },
] as const;

function freshness(): { expr: string; red: number } {
  const dashboard = dashboardFiles()
    .map((file) => loadDashboard(file).json)
    .find((d) => d.title === 'DataProtect / Exporter health');
  const panel = dashboard && panelsOf(dashboard).find((p) => p.title.startsWith('Freshness'));
  const steps = (panel?.fieldConfig?.defaults as { thresholds?: { steps: Array<{ color: string; value: number | null }> } } | undefined)?.thresholds?.steps ?? [];
  const red = steps.find((step) => step.color === 'red')?.value;
  const expr = panel?.targets?.[0]?.expr;
  if (!expr || typeof red !== 'number') throw new Error('no Freshness panel with a red threshold');
  return { expr: substituteVariables(expr), red };
}

describe('the Freshness panel and DataProtectCollectorDataStale', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dashboard-thresholds-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns red for exactly the collectors whose data the alert calls stale', async () => {
    const alert = allRules().alerts.find((rule) => rule.alert === 'DataProtectCollectorDataStale');
    if (!alert) throw new Error('no DataProtectCollectorDataStale rule');
    const panel = freshness();
    const red = `(${panel.expr}) >= ${panel.red}`;
    const stale = `max by (target, collector) (${alert.expr})`;
    const input_series = COLLECTORS.flatMap(({ collector, interval, age }) => {
      const labels = `target="rp-a", collector="${collector}", job="dataprotect", instance="pod-1:8497"`;
      return [
        { series: `dataprotect_collector_schedule_interval_seconds{${labels}}`, values: constant(interval) },
        { series: `dataprotect_collector_last_success_timestamp_seconds{${labels}}`, values: constant(EVAL_SECONDS - age) },
      ];
    });
    const expected = (which: boolean) => COLLECTORS.filter((c) => c.stale === which).map((c) => ({ labels: `{target="rp-a", collector="${c.collector}"}`, value: 1 }));
    const file = 'freshness.test.yml';
    writeFileSync(
      path.join(dir, file),
      stringify({
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series,
            promql_expr_test: [
              // the truth of the scenario, by the alert's own expression
              { expr: `count by (target, collector) (${stale})`, eval_time: '2h', exp_samples: expected(true) },
              // red where the alert holds, and nowhere else
              { expr: `count by (target, collector) (${red})`, eval_time: '2h', exp_samples: expected(true) },
            ],
          },
        ],
      }),
    );
    const result = await testRules([file], dir);
    expect(result.output).not.toContain('FAILED');
    expect(result.code).toBe(0);
  });
});
