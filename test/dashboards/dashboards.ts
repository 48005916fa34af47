/**
 * Reads the Grafana dashboards of dashboards/ and lists their queries, with the
 * Grafana variables replaced so that Prometheus or promtool can parse them.
 * Used by the structural tests and by end-to-end tests against a real Prometheus.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../rules/contract';

export const DASHBOARDS_DIR = path.join(REPO_ROOT, 'dashboards');

export interface DataSourceRef {
  readonly type?: string;
  readonly uid?: string;
}

export interface PanelTarget {
  readonly refId?: string;
  readonly expr?: string;
  readonly datasource?: DataSourceRef;
  readonly instant?: boolean;
  readonly range?: boolean;
  readonly format?: string;
  readonly legendFormat?: string;
}

export interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly datasource?: DataSourceRef;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly fieldConfig?: { readonly defaults?: { readonly unit?: string } };
  readonly targets?: readonly PanelTarget[];
  readonly transformations?: ReadonlyArray<{ readonly id: string; readonly options: Record<string, unknown> }>;
  readonly panels?: readonly Panel[];
}

export interface TemplateVariable {
  readonly name: string;
  readonly type: string;
  readonly query?: unknown;
  readonly definition?: string;
  readonly datasource?: DataSourceRef;
  readonly multi?: boolean;
  readonly includeAll?: boolean;
  readonly allValue?: string;
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly schemaVersion: number;
  readonly refresh?: string;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly TemplateVariable[] };
  readonly [key: string]: unknown;
}

export interface LoadedDashboard {
  readonly file: string;
  readonly text: string;
  readonly json: Dashboard;
}

export function dashboardFiles(): string[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => path.join(DASHBOARDS_DIR, name));
}

export function loadDashboard(file: string): LoadedDashboard {
  const text = readFileSync(file, 'utf8');
  return { file, text, json: JSON.parse(text) as Dashboard };
}

/** Every panel, rows' collapsed panels included. */
export function panelsOf(dashboard: Dashboard): Panel[] {
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

export interface DashboardQuery {
  readonly dashboard: string;
  readonly panel: string;
  readonly refId: string;
  /** As written in the dashboard. */
  readonly expr: string;
  readonly instant: boolean;
}

export function queriesOf(dashboard: Dashboard): DashboardQuery[] {
  return panelsOf(dashboard).flatMap((panel) =>
    (panel.targets ?? [])
      .filter((target) => target.expr !== undefined)
      .map((target) => ({
        dashboard: dashboard.title,
        panel: panel.title,
        refId: target.refId ?? '',
        expr: target.expr ?? '',
        instant: target.instant === true,
      })),
  );
}

/** Grafana's built-in variables, with values that make a query valid PromQL. */
export const BUILTIN_VARIABLES: Readonly<Record<string, string>> = {
  __rate_interval: '5m',
  __interval: '1m',
  __range: '1h',
};

/** Variable references in an expression: $name, ${name} and ${name:format}. */
export function variableReferences(expr: string): string[] {
  return [...expr.matchAll(/\$(?:\{(\w+)(?::\w+)?\}|(\w+))/g)].map((match) => match[1] ?? match[2] ?? '');
}

/**
 * The expression with Grafana's variables replaced: built-ins by plausible
 * durations, dashboard variables (always used in =~ matchers) by `.*`, which is
 * what "All" sends.
 */
export function substituteVariables(expr: string, values: Readonly<Record<string, string>> = {}): string {
  return expr.replace(/\$(?:\{(\w+)(?::\w+)?\}|(\w+))/g, (_whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    return values[name] ?? BUILTIN_VARIABLES[name] ?? '.*';
  });
}

/** The metric of a `label_values(metric{...}, label)` variable query. */
export function variableQueryExpr(variable: TemplateVariable): string | undefined {
  const query = typeof variable.query === 'string' ? variable.query : (variable.query as { query?: string } | undefined)?.query;
  const match = /^label_values\((.*),\s*\w+\)$/.exec(query ?? '');
  return match?.[1];
}
