/**
 * The Grafana dashboards import as they are (no __inputs, a datasource variable
 * used by every panel), every panel has a unit and a description, rates use
 * $__rate_interval, every query is valid PromQL (promtool) over metrics of the
 * contract or recording rules of alerts/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { contractProblems, loadContract, seriesOf } from '../rules/contract';
import { checkRules } from '../rules/promtool';
import { allRules } from '../rules/rules-files';
import {
  type Dashboard,
  dashboardFiles,
  type DashboardQuery,
  loadDashboard,
  panelsOf,
  queriesOf,
  substituteVariables,
  variableQueryExpr,
  variableReferences,
  BUILTIN_VARIABLES,
} from './dashboards';

const loaded = dashboardFiles().map(loadDashboard);
const dashboards = loaded.map((entry) => [path.basename(entry.file), entry.json] as const);
const DATASOURCE_UID = '${datasource}';

/** Every `datasource` object anywhere in the JSON, with where it is. */
function datasourceRefs(node: unknown, where = ''): Array<[string, unknown]> {
  if (Array.isArray(node)) return node.flatMap((child, index) => datasourceRefs(child, `${where}[${index}]`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'datasource' ? [[`${where}.${key}`, value] as [string, unknown]] : datasourceRefs(value, `${where}.${key}`),
  );
}

/** Runs promtool check rules on the given queries as recording rules; returns its output when it fails. */
function promtoolRejects(queries: readonly DashboardQuery[]): string | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-queries-'));
  try {
    const file = path.join(dir, 'queries.rules.yml');
    const rules = queries.map((query, index) => ({
      record: `dashboard:query_${index}:check`,
      expr: substituteVariables(query.expr),
      labels: { panel: `${query.dashboard} / ${query.panel} / ${query.refId}` },
    }));
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard-queries', rules }] }));
    const result = checkRules([file]);
    return result.code === 0 ? undefined : result.output;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the dashboards of issue 5', () => {
  it('are the four listed: protection SLA, replication, protection storage, exporter health', () => {
    expect(dashboards.map(([file]) => file).sort()).toEqual(['exporter-health.json', 'protection-sla.json', 'protection-storage.json', 'replication.json']);
    expect(loaded.map((entry) => entry.json.title).sort()).toEqual([
      'DataProtect / Exporter health',
      'DataProtect / Protection SLA',
      'DataProtect / Protection storage',
      'DataProtect / Replication',
    ]);
  });

  it('have distinct uids', () => {
    const uids = loaded.map((entry) => entry.json.uid);
    expect(new Set(uids).size).toBe(uids.length);
  });
});

describe.each(dashboards)('%s', (_file, dashboard: Dashboard) => {
  const panels = panelsOf(dashboard);
  const queries = queriesOf(dashboard);
  const variables = dashboard.templating.list;

  it('imports as is: schema version 39, no __inputs, no fixed data source', () => {
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard).not.toHaveProperty('__inputs');
    expect(dashboard.id ?? null).toBeNull();
    for (const [where, ref] of datasourceRefs(dashboard)) {
      const uid = (ref as { uid?: string } | undefined)?.uid;
      // the built-in annotation query is Grafana's own
      if (where.startsWith('.annotations')) continue;
      expect({ where, uid }).toEqual({ where, uid: DATASOURCE_UID });
    }
  });

  it('has a Prometheus datasource variable and a multi-value target variable with All', () => {
    const datasource = variables.find((variable) => variable.name === 'datasource');
    expect(datasource).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const target = variables.find((variable) => variable.name === 'target');
    expect(target).toMatchObject({ type: 'query', multi: true, includeAll: true, allValue: '.*', datasource: { uid: DATASOURCE_UID } });
    expect(target && variableQueryExpr(target)).toBe('dataprotect_up');
  });

  it('has unique panel ids and titles', () => {
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const titles = panels.map((panel) => panel.title);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it.each(panels.map((panel) => [panel.title, panel]))('panel "%s" uses the datasource variable, has a unit, a description and queries', (_title, panel) => {
    expect(panel.datasource?.uid).toBe(DATASOURCE_UID);
    expect(panel.fieldConfig?.defaults?.unit).toMatch(/\S/);
    expect(panel.description?.length ?? 0).toBeGreaterThan(20);
    expect(panel.targets?.length ?? 0).toBeGreaterThan(0);
    for (const target of panel.targets ?? []) {
      expect(target.datasource?.uid).toBe(DATASOURCE_UID);
      expect(target.expr).toMatch(/\S/);
    }
    const refIds = (panel.targets ?? []).map((target) => target.refId);
    expect(new Set(refIds).size).toBe(refIds.length);
  });

  it('lays panels out on the 24-column grid without overlaps', () => {
    for (const { gridPos, title } of panels) {
      expect({ title, fits: gridPos.x >= 0 && gridPos.w > 0 && gridPos.h > 0 && gridPos.x + gridPos.w <= 24 }).toEqual({ title, fits: true });
    }
    const overlaps = panels.flatMap((a, i) =>
      panels.slice(i + 1).filter((b) => {
        const [p, q] = [a.gridPos, b.gridPos];
        return p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;
      }).map((b) => `${a.title} / ${b.title}`),
    );
    expect(overlaps).toEqual([]);
  });

  it('uses $__rate_interval in every rate(), irate() and increase()', () => {
    const offending = queries.filter(
      (query) => /\b(rate|irate|increase)\s*\(/.test(query.expr) && (query.expr.match(/\[[^\]]*\]/g) ?? []).some((range) => range !== '[$__rate_interval]'),
    );
    expect(offending.map((query) => `${query.panel}: ${query.expr}`)).toEqual([]);
  });

  it('refers only to variables it defines or Grafana built-ins', () => {
    const known = new Set([...variables.map((variable) => variable.name), ...Object.keys(BUILTIN_VARIABLES)]);
    const unknown = queries.flatMap((query) => variableReferences(query.expr)).filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
  });

  it('every query parses (promtool check rules on the queries as recording rules)', () => {
    expect(queries.length).toBeGreaterThan(0);
    expect(promtoolRejects(queries)).toBeUndefined();
  });

  it('uses only metrics of the contract and recording rules of alerts/', () => {
    const series = seriesOf(loadContract());
    const recorded = new Set(allRules().records.map((rule) => rule.record));
    const exprs = [...queries.map((query) => query.expr), ...variables.map(variableQueryExpr).filter((expr): expr is string => expr !== undefined)];
    const problems = exprs.flatMap((expr) => contractProblems(substituteVariables(expr), series, recorded).map((problem) => `${problem} in ${expr}`));
    expect(problems).toEqual([]);
  });
});

describe('tables', () => {
  const byTitle = (file: string, title: string) => {
    const entry = loaded.find((dashboard) => path.basename(dashboard.file) === file);
    return entry && panelsOf(entry.json).find((panel) => panel.title === title);
  };

  it.each([
    ['protection-sla.json', 'Assets out of RPO or without a copy', ['Asset', 'Type', 'Policy', 'Age of newest copy', 'RPO']],
    ['replication.json', 'Paused VMs', ['VM', 'Consistency group', 'Replication cluster', 'Role']],
  ])('%s "%s" is an instant table query with named columns', (file, title, columns) => {
    const panel = byTitle(file, title);
    expect(panel?.type).toBe('table');
    for (const target of panel?.targets ?? []) expect(target).toMatchObject({ instant: true, format: 'table' });
    const organize = panel?.transformations?.find((transformation) => transformation.id === 'organize');
    const renamed = Object.values((organize?.options.renameByName ?? {}) as Record<string, string>);
    expect(renamed).toEqual(expect.arrayContaining(columns));
  });

  it('the protection SLA dashboard is made for a wall: refreshes every minute, headline figures on top', () => {
    const sla = loaded.find((entry) => path.basename(entry.file) === 'protection-sla.json')?.json;
    expect(sla?.refresh).toBe('1m');
    const top = panelsOf(sla as Dashboard).filter((panel) => panel.gridPos.y === 0);
    expect(top.length).toBeGreaterThanOrEqual(4);
    expect(top.every((panel) => panel.type === 'stat')).toBe(true);
  });
});

describe('the query check', () => {
  it('rejects a query promtool cannot parse (so the check above can fail)', () => {
    const broken: DashboardQuery = { dashboard: 'test', panel: 'broken', refId: 'A', expr: 'sum(rate(dataprotect_up{target=~"$target"}[$__rate_interval])', instant: false };
    expect(promtoolRejects([broken])).toMatch(/test \/ broken \/ A|parse error|unclosed/);
  });

  it('substitutes Grafana variables', () => {
    expect(substituteVariables('rate(x{target=~"$target", tier=~"${tier}"}[$__rate_interval])')).toBe('rate(x{target=~".*", tier=~".*"}[5m])');
    expect(variableReferences('a{t=~"$target"}[${__rate_interval}] $tier')).toEqual(['target', '__rate_interval', 'tier']);
  });
});
