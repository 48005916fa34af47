/**
 * The rows Grafana shows in a table panel whose instant queries (format table) go through a merge
 * transformation, built from Prometheus's answers as Grafana builds them:
 *
 * - the Prometheus data source makes one frame per query (refId): a Time column, one column per
 *   label of its series, `__name__` included (a recording rule's or a metric's name stays on its
 *   series), and the value as "Value #<refId>" (transformDFToTable);
 * - the merge transformation keys rows by the fields that every frame has, and puts a row into a
 *   row of the same key only when no field the two both have differs; otherwise the row stays a
 *   row of its own (mergeTransformer).
 *
 * So two queries of one table whose series keep different `__name__` labels never share a row.
 */
import type { Sample } from '../e2e/prometheus-harness';

export type TableRow = Readonly<Record<string, string | number>>;

export interface TableQueryResult {
  readonly refId: string;
  readonly series: readonly Sample[];
}

interface Frame {
  readonly fields: ReadonlySet<string>;
  readonly rows: readonly TableRow[];
}

/** One query's frame: Time, its label columns and its value column. */
function frameOf(result: TableQueryResult, valueName: string): Frame {
  const labels = [...new Set(result.series.flatMap((sample) => Object.keys(sample.metric)))].sort();
  const rows = result.series.map((sample) => ({
    Time: sample.value[0],
    ...Object.fromEntries(labels.map((label) => [label, sample.metric[label] ?? ''])),
    [valueName]: Number(sample.value[1]),
  }));
  return { fields: new Set(['Time', ...labels, valueName]), rows };
}

function mergeable(existing: TableRow, row: TableRow): boolean {
  return Object.entries(row).every(([field, value]) => existing[field] === undefined || existing[field] === value);
}

/** The merged table of the queries' results (a query without series makes no frame). */
export function mergedTable(results: readonly TableQueryResult[]): TableRow[] {
  const withSeries = results.filter((result) => result.series.length > 0);
  const frames = withSeries.map((result) => frameOf(result, withSeries.length > 1 ? `Value #${result.refId}` : 'Value'));
  if (frames.length === 0) return [];
  const keyFields = [...(frames[0]?.fields ?? [])].filter((field) => frames.every((frame) => frame.fields.has(field)));
  const byKey = new Map<string, Array<Record<string, string | number>>>();
  const inOrder: Array<Record<string, string | number>> = [];
  for (const frame of frames) {
    for (const row of frame.rows) {
      const key = JSON.stringify(keyFields.map((field) => row[field]));
      const rows = byKey.get(key) ?? [];
      byKey.set(key, rows);
      const into = rows.filter((existing) => mergeable(existing, row));
      for (const existing of into) Object.assign(existing, row);
      if (into.length === 0) {
        const fresh = { ...row };
        rows.push(fresh);
        inOrder.push(fresh);
      }
    }
  }
  return inOrder;
}
