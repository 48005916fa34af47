/** scripts/build-rules.ts: the committed rules file is its output, and it refuses bad input. */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import {
  buildRules,
  durationSeconds,
  GENERATED_HEADER,
  parseThresholds,
  renderRules,
  RULES_FILE,
  RUNBOOK_URL,
  TEMPLATE_FILE,
  THRESHOLDS_FILE,
} from '../../scripts/build-rules';
import { REPO_ROOT } from './contract';

const thresholdsText = readFileSync(THRESHOLDS_FILE, 'utf8');
const template = readFileSync(TEMPLATE_FILE, 'utf8');

function withChange(change: (raw: Record<string, Record<string, unknown>>) => void): string {
  const raw = parse(thresholdsText) as Record<string, Record<string, unknown>>;
  change(raw);
  return stringify(raw);
}

describe('build-rules', () => {
  it('the committed alerts/dataprotect.rules.yml is what the template and thresholds give', () => {
    // If this fails: npx tsx scripts/build-rules.ts
    expect(readFileSync(RULES_FILE, 'utf8')).toBe(buildRules());
  });

  it('--check exits 0 on the committed file', () => {
    const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
    const result = spawnSync(tsx, ['scripts/build-rules.ts', '--check'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(result.stderr).not.toContain('out of date');
    expect(result.status).toBe(0);
  });

  it('--help prints its usage and writes nothing; an unknown option is refused', () => {
    const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
    const before = statSync(RULES_FILE).mtimeMs;
    const help = spawnSync(tsx, ['scripts/build-rules.ts', '--help'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npx tsx scripts\/build-rules\.ts \[--check\]/);
    expect(help.stdout).toContain('--check');
    expect(help.stdout).not.toContain('wrote');
    expect(statSync(RULES_FILE).mtimeMs).toBe(before);
    const wrong = spawnSync(tsx, ['scripts/build-rules.ts', '--chek'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('unknown option --chek');
    expect(statSync(RULES_FILE).mtimeMs).toBe(before);
  });

  it('fills thresholds, derived values and the runbook address', () => {
    const rules = renderRules(template, parseThresholds(thresholdsText));
    expect(rules.startsWith(GENERATED_HEADER)).toBe(true);
    expect(rules).not.toMatch(/\$\{/);
    expect(rules).toContain('dataprotect_storage_replication_lag_seconds > 3600');
    expect(rules).toContain('(warning above 85%)');
    expect(rules).toContain('(threshold 10%)');
    expect(rules).toContain(`runbook_url: ${RUNBOOK_URL}#dataprotectassetoutofrpo`);
    expect(rules).toContain('for: 30m');
  });

  it('a changed threshold lands in the rules', () => {
    const thresholds = parseThresholds(withChange((raw) => ((raw.storage as Record<string, unknown>).usedCriticalRatio = 0.97)));
    expect(renderRules(template, thresholds)).toContain('> 0.97');
  });

  it.each([
    ['a ratio above 1', (raw: Record<string, Record<string, unknown>>) => (raw.storage!.usedWarningRatio = 85), 'storage.usedWarningRatio'],
    ['warning not below critical', (raw: Record<string, Record<string, unknown>>) => (raw.storage!.usedWarningRatio = 0.96), 'must be below usedCriticalRatio'],
    ['a bad duration', (raw: Record<string, Record<string, unknown>>) => (raw.assets!.outOfRpoFor = '30 minutes'), 'assets.outOfRpoFor'],
    ['an unknown key', (raw: Record<string, Record<string, unknown>>) => (raw.assets!.outOfRpoFour = '30m'), 'outOfRpoFour'],
    ['a missing key', (raw: Record<string, Record<string, unknown>>) => delete raw.exporter!.jobRegex, 'exporter.jobRegex'],
    ['a broken regular expression', (raw: Record<string, Record<string, unknown>>) => (raw.activities!.categories = 'PROTECT|('), 'activities.categories'],
    // rendered as present_over_time(...[0s] offset 0s): Prometheus refuses a range of 0 ("duration must be greater than 0")
    ['a zero slaMinHistory', (raw: Record<string, Record<string, unknown>>) => (raw.policies!.slaMinHistory = '0s'), 'policies.slaMinHistory'],
  ])('rejects %s, naming the field', (_what, change, message) => {
    expect(() => parseThresholds(withChange(change))).toThrow(message);
  });

  it('rejects an unknown placeholder and a tunable the template never uses', () => {
    const thresholds = parseThresholds(thresholdsText);
    expect(() => renderRules(`${template}\n# \${storage.nope}\n`, thresholds)).toThrow('unknown tunable ${storage.nope}');
    expect(() => renderRules(template.replace('${storage.replicationLagFor}', '15m'), thresholds)).toThrow(
      'tunable storage.replicationLagFor is not used by the template',
    );
    expect(() => renderRules(template.replace('${storage.replicationLag:seconds}', '${storage.replicationLag:hours}'), thresholds)).toThrow(
      'unknown filter',
    );
  });

  it.each([
    ['30s', 30],
    ['15m', 900],
    ['1h30m', 5400],
    ['2d', 172800],
    ['500ms', 0.5],
  ])('reads the duration %s as %d s', (duration, seconds) => {
    expect(durationSeconds(duration)).toBe(seconds);
  });

  it('refuses a duration Prometheus would refuse', () => {
    expect(() => durationSeconds('1.5h')).toThrow('not a Prometheus duration');
  });
});
