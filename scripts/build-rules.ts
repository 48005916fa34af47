/**
 * Builds alerts/dataprotect.rules.yml from the template alerts/src/dataprotect.rules.tmpl.yml
 * and the tunables of alerts/thresholds.yaml. Prometheus rule files cannot hold
 * variables; this keeps every threshold and `for` duration in one short file.
 *
 *   npx tsx scripts/build-rules.ts           write alerts/dataprotect.rules.yml
 *   npx tsx scripts/build-rules.ts --check   exit 1 when the committed file is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

export const REPO_ROOT = path.resolve(__dirname, '..');
export const THRESHOLDS_FILE = path.join(REPO_ROOT, 'alerts/thresholds.yaml');
export const TEMPLATE_FILE = path.join(REPO_ROOT, 'alerts/src/dataprotect.rules.tmpl.yml');
export const RULES_FILE = path.join(REPO_ROOT, 'alerts/dataprotect.rules.yml');
export const RUNBOOK_URL = 'https://github.com/dataprotect-exporter/dataprotect-exporter/blob/main/docs/runbook.md';

const DURATION_UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
const DURATION_PART = /(\d+)(ms|s|m|h|d|w|y)/g;
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

/** Seconds in a Prometheus duration such as 1h30m. */
export function durationSeconds(duration: string): number {
  if (!DURATION.test(duration)) throw new Error(`"${duration}" is not a Prometheus duration`);
  let seconds = 0;
  for (const [, amount, unit] of duration.matchAll(DURATION_PART)) {
    seconds += Number(amount) * (DURATION_UNIT_SECONDS[unit ?? ''] ?? Number.NaN);
  }
  return seconds;
}

const duration = z.string().regex(DURATION, 'a Prometheus duration such as 30s, 15m, 2h, 1d');
const positiveDuration = duration.refine((value) => durationSeconds(value) > 0, 'longer than zero');
const ratio = z.number().gt(0).lt(1);
const count = z.number().int().min(1);
const regex = z.string().min(1).refine((value) => {
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}, 'a valid regular expression');

export const thresholdsSchema = z
  .strictObject({
    assets: z.strictObject({ withoutCopyFor: duration, outOfRpoFor: duration }),
    policies: z.strictObject({ allOutOfRpoFor: duration, allOutOfRpoMinAssets: count, slaAttainment30d: ratio, slaAttainmentFor: duration, slaMinHistory: positiveDuration }),
    activities: z.strictObject({ failureRatio: ratio, failingFor: duration, categories: regex }),
    replication: z.strictObject({ vmPausedFor: duration, clusterDisconnectedFor: duration }),
    storage: z.strictObject({
      usedWarningRatio: ratio,
      usedCriticalRatio: ratio,
      almostFullFor: duration,
      fillWindow: positiveDuration,
      fillHorizonDays: z.number().positive(),
      fillingUpFor: duration,
      replicationLag: positiveDuration,
      replicationLagFor: duration,
    }),
    exporter: z.strictObject({
      targetDownFor: duration,
      collectorFailingRuns: count,
      collectorFailingFor: duration,
      protectionCollectors: regex,
      protectionUnmonitoredAfter: duration,
      protectionUnmonitoredFor: duration,
      collectorStaleIntervals: z.number().min(1),
      collectorStaleMin: duration,
      collectorStaleFor: duration,
      jobRegex: regex,
      exporterDownFor: duration,
      exporterAbsentFor: duration,
      configReloadFailedFor: duration,
      collectionRestarts: z.number().int().min(1),
      collectionRestartsWindow: positiveDuration,
      collectionRestartingFor: duration,
    }),
  })
  .refine((t) => t.storage.usedWarningRatio < t.storage.usedCriticalRatio, {
    message: 'usedWarningRatio must be below usedCriticalRatio',
    path: ['storage', 'usedWarningRatio'],
  });

export type Thresholds = z.infer<typeof thresholdsSchema>;

/** Parses and validates the tunables; one line per problem, naming the field. */
export function parseThresholds(text: string): Thresholds {
  const result = thresholdsSchema.safeParse(parse(text));
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new Error(`invalid thresholds:\n${problems.join('\n')}`);
}

/** Every tunable as a dotted key (storage.usedWarningRatio) with its value. */
function flatten(thresholds: Thresholds): Map<string, string | number> {
  const values = new Map<string, string | number>();
  for (const [section, fields] of Object.entries(thresholds)) {
    for (const [key, value] of Object.entries(fields as Record<string, string | number>)) {
      values.set(`${section}.${key}`, value);
    }
  }
  return values;
}

const FILTERS: Record<string, (value: string | number, key: string) => string> = {
  seconds: (value, key) => {
    if (typeof value !== 'string') throw new Error(`\${${key}:seconds} needs a duration`);
    return String(durationSeconds(value));
  },
  percent: (value, key) => {
    if (typeof value !== 'number') throw new Error(`\${${key}:percent} needs a number`);
    // Round away binary noise: 0.1 * 100 is 10.000000000000002.
    return String(Number((value * 100).toPrecision(12)));
  },
};

const PLACEHOLDER = /\$\{([A-Za-z][A-Za-z0-9.]*)(?::([a-z]+))?\}/g;

export const GENERATED_HEADER = [
  '# GENERATED by scripts/build-rules.ts: do not edit by hand.',
  '# Rules: alerts/src/dataprotect.rules.tmpl.yml; thresholds and `for` durations: alerts/thresholds.yaml.',
  '# Rebuild after an edit: npx tsx scripts/build-rules.ts (see docs/runbook.md#tuning).',
].join('\n');

/**
 * Fills the template's ${key} and ${key:filter} placeholders. Fails on an unknown
 * key or filter, and on a tunable the template never uses (it would be a knob
 * that turns nothing).
 */
export function renderRules(template: string, thresholds: Thresholds): string {
  const values = flatten(thresholds);
  const used = new Set<string>();
  const problems: string[] = [];
  // The template's leading comment explains the template, not the generated file.
  const body = template.replace(/^(#[^\n]*\n)+/, '');
  const rendered = body.replace(PLACEHOLDER, (whole, key: string, filter: string | undefined) => {
    if (key === 'runbook' && filter === undefined) return RUNBOOK_URL;
    const value = values.get(key);
    if (value === undefined) {
      problems.push(`unknown tunable ${whole}`);
      return whole;
    }
    used.add(key);
    if (filter === undefined) return String(value);
    const apply = FILTERS[filter];
    if (!apply) {
      problems.push(`unknown filter in ${whole}`);
      return whole;
    }
    return apply(value, key);
  });
  for (const key of values.keys()) {
    if (!used.has(key)) problems.push(`tunable ${key} is not used by the template`);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const output = `${GENERATED_HEADER}\n${rendered}`;
  const parsed = parse(output) as { groups?: unknown[] } | null;
  if (!parsed || !Array.isArray(parsed.groups) || parsed.groups.length === 0) {
    throw new Error('the rendered rules have no groups');
  }
  return output;
}

/** The rules file as the committed template and thresholds produce it. */
export function buildRules(): string {
  const thresholds = parseThresholds(readFileSync(THRESHOLDS_FILE, 'utf8'));
  return renderRules(readFileSync(TEMPLATE_FILE, 'utf8'), thresholds);
}

const USAGE = `Usage: npx tsx scripts/build-rules.ts [--check]

Builds alerts/dataprotect.rules.yml from alerts/src/dataprotect.rules.tmpl.yml and the
tunables of alerts/thresholds.yaml (docs/runbook.md#tuning explains them).

  (no option)  write alerts/dataprotect.rules.yml
  --check      write nothing; exit 1 when the committed file is out of date
  --help       this text
`;

function main(argv: readonly string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = argv.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`unknown option ${unknown.join(' ')}\n\n${USAGE}`);
    return 2;
  }
  const rules = buildRules();
  const relative = path.relative(process.cwd(), RULES_FILE);
  if (argv.includes('--check')) {
    const current = readFileSync(RULES_FILE, 'utf8');
    if (current === rules) return 0;
    console.error(`${relative} is out of date: run npx tsx scripts/build-rules.ts`);
    return 1;
  }
  writeFileSync(RULES_FILE, rules);
  console.log(`wrote ${relative}`);
  return 0;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
