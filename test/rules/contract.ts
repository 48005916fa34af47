/**
 * The metric contract as data, so that tests can hold every rule and dashboard
 * expression to it: the families of the catalog (src/metrics/catalog.ts, the
 * repository's metric contract) and the Prometheus series the rules use.
 */
import path from 'node:path';
import { METRIC_FAMILIES } from '../../src/metrics/catalog';
import { analyzePromql } from './promql';

export const REPO_ROOT = path.resolve(__dirname, '../..');

export interface ContractMetric {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
}

/** Prometheus's own series that the rules use (the scrape health of the exporter). */
const PROMETHEUS_SERIES: readonly ContractMetric[] = [{ name: 'up', type: 'gauge', labels: [] }];

/** Labels that Prometheus adds to every scraped series. */
export const TARGET_LABELS = ['instance', 'job'] as const;

export function loadContract(): Map<string, ContractMetric> {
  const metrics = new Map<string, ContractMetric>();
  for (const metric of [...METRIC_FAMILIES, ...PROMETHEUS_SERIES]) metrics.set(metric.name, metric);
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
