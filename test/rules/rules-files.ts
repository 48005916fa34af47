/** Loads the Prometheus rule files of alerts/ and the promtool unit-test files of test/rules/. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './contract';

export const ALERTS_DIR = path.join(REPO_ROOT, 'alerts');
export const RULE_TESTS_DIR = path.join(REPO_ROOT, 'test/rules');
export const RUNBOOK_FILE = path.join(REPO_ROOT, 'docs/runbook.md');

export interface AlertingRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: ReadonlyArray<AlertingRule | RecordingRule>;
}

/** The rule files Prometheus loads: alerts/*.rules.yml (not the template in alerts/src). */
export function ruleFiles(): string[] {
  return readdirSync(ALERTS_DIR)
    .filter((name) => name.endsWith('.rules.yml'))
    .map((name) => path.join(ALERTS_DIR, name));
}

export function ruleTestFiles(): string[] {
  return readdirSync(RULE_TESTS_DIR)
    .filter((name) => name.endsWith('.test.yml'))
    .map((name) => path.join(RULE_TESTS_DIR, name));
}

export function loadGroups(file: string): RuleGroup[] {
  const parsed = parse(readFileSync(file, 'utf8')) as { groups: RuleGroup[] };
  return parsed.groups;
}

export function allRules(): { alerts: AlertingRule[]; records: RecordingRule[] } {
  const rules = ruleFiles().flatMap((file) => loadGroups(file).flatMap((group) => group.rules));
  return {
    alerts: rules.filter((rule): rule is AlertingRule => 'alert' in rule),
    records: rules.filter((rule): rule is RecordingRule => 'record' in rule),
  };
}

/** Anchors GitHub gives the headings of a markdown file (lower case, punctuation dropped, spaces to hyphens). */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (inFence || !heading?.[1]) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/`/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

export interface AlertTestCase {
  readonly eval_time: string;
  readonly alertname: string;
  readonly exp_alerts?: ReadonlyArray<unknown>;
}

export interface RuleTestFile {
  readonly rule_files: string[];
  readonly tests: ReadonlyArray<{ readonly name?: string; readonly alert_rule_test?: ReadonlyArray<AlertTestCase> }>;
}

export function loadRuleTest(file: string): RuleTestFile {
  return parse(readFileSync(file, 'utf8')) as RuleTestFile;
}
