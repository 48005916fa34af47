/**
 * The metric contract (../shared/metrics-contract.md) as data, so that tests can
 * hold every rule and dashboard expression to it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { analyzePromql } from './promql';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const CONTRACT_FILE = path.resolve(REPO_ROOT, '../shared/metrics-contract.md');

export interface ContractMetric {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
}

/**
 * Metrics the dashboards and alerts may use beyond the contract's tables:
 * the schedule interval gauge, agreed for issue 5 to judge staleness, and
 * each policy's RPO with its source, agreed for issue 16 (protection SLA).
 */
export const CONTRACT_ADDITIONS: readonly ContractMetric[] = [
  { name: 'dataprotect_collector_schedule_interval_seconds', type: 'gauge', labels: ['target', 'collector'] },
  { name: 'dataprotect_config_last_reload_successful', type: 'gauge', labels: [] },
  { name: 'dataprotect_policy_rpo_seconds', type: 'gauge', labels: ['target', 'policy_id', 'policy', 'source'] },
];

/**
 * Labels added to contract metrics (additive: no series loses a label):
 * class_type on the activity families, agreed for issue 21, because a policy
 * run is one JOB_GROUP plus one JOB per asset in the same category.
 */
export const CONTRACT_LABEL_ADDITIONS: Readonly<Record<string, readonly string[]>> = {
  dataprotect_activities_completed_total: ['class_type'],
  dataprotect_activities_window: ['class_type'],
  dataprotect_activities: ['class_type'],
  dataprotect_activity_duration_seconds: ['class_type'],
  dataprotect_activity_transferred_bytes_total: ['class_type'],
};

/** Prometheus's own series that the rules use (the scrape health of the exporter). */
const PROMETHEUS_SERIES: readonly ContractMetric[] = [{ name: 'up', type: 'gauge', labels: [] }];

/** Labels that Prometheus adds to every scraped series. */
export const TARGET_LABELS = ['instance', 'job'] as const;

/** Parses the contract's tables: `| name[, name] | type | labels | meaning |`. */
export function parseContract(markdown: string): Map<string, ContractMetric> {
  const metrics = new Map<string, ContractMetric>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // a table row splits into ['', name, type, labels, meaning, '']
    const [, names, type, labels] = cells;
    if (!names || !type || labels === undefined || !/^dataprotect_/.test(names)) continue;
    for (const name of names.split(',').map((part) => part.trim())) {
      metrics.set(name, { name, type, labels: labels.split(',').map((label) => label.trim()).filter(Boolean) });
    }
  }
  return metrics;
}

export function loadContract(): Map<string, ContractMetric> {
  let markdown: string;
  try {
    markdown = readFileSync(CONTRACT_FILE, 'utf8');
  } catch {
    throw new Error(`the metric contract is missing: expected ${CONTRACT_FILE} beside the project`);
  }
  const metrics = parseContract(markdown);
  for (const metric of [...CONTRACT_ADDITIONS, ...PROMETHEUS_SERIES]) metrics.set(metric.name, metric);
  for (const [name, added] of Object.entries(CONTRACT_LABEL_ADDITIONS)) {
    const metric = metrics.get(name);
    if (metric) metrics.set(name, { ...metric, labels: [...metric.labels, ...added] });
  }
  return metrics;
}

/** Series names a family exposes: a histogram has _bucket (with le), _sum and _count. */
export function seriesOf(metrics: ReadonlyMap<string, ContractMetric>): Map<string, readonly string[]> {
  const series = new Map<string, readonly string[]>();
  for (const metric of metrics.values()) {
    if (metric.type === 'histogram') {
      series.set(`${metric.name}_bucket`, [...metric.labels, 'le']);
      series.set(`${metric.name}_sum`, metric.labels);
      series.set(`${metric.name}_count`, metric.labels);
    } else {
      series.set(metric.name, metric.labels);
    }
  }
  return series;
}

/**
 * What an expression uses that the contract does not offer: unknown metric names
 * (recording rules excepted), matchers on labels the metric does not have, and
 * grouping labels that no metric has.
 */
export function contractProblems(
  expr: string,
  series: ReadonlyMap<string, readonly string[]>,
  recordedMetrics: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const anyLabel = new Set<string>([...TARGET_LABELS, 'le', 'alertname', 'alertstate']);
  for (const labels of series.values()) labels.forEach((label) => anyLabel.add(label));
  const usage = analyzePromql(expr);
  for (const selector of usage.selectors) {
    const labels = series.get(selector.name);
    if (!labels && !recordedMetrics.has(selector.name)) {
      problems.push(`${selector.name} is neither in the metric contract nor a recording rule`);
      continue;
    }
    const allowed = labels ? new Set([...labels, ...TARGET_LABELS]) : anyLabel;
    for (const label of selector.matcherLabels) {
      if (!allowed.has(label)) problems.push(`${selector.name} has no label ${label}`);
    }
  }
  for (const label of usage.groupingLabels) {
    if (!anyLabel.has(label)) problems.push(`no metric has the label ${label} used in a grouping`);
  }
  return problems;
}
