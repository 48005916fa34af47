import { readYamlFile, substituteEnv } from './yaml-file';
import { configSchema, targetKinds, type ExporterConfig, type TargetKind } from './schema';
import { check, formatPath } from '../util/validation';

export type { ExporterConfig, TargetKind } from './schema';

/** A target as the rest of the exporter sees it: secrets resolved and wrapped, CA loaded. Durations are milliseconds. */
export type TargetConfig = ExporterConfig['targets'][number];

/** One message per problem, each naming the field path, e.g. `targets[0].url: must be an http:// or https:// URL`. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Names of the collectors that exist for each target kind, to reject typos in `collectors:`. */
export type KnownCollectors = Record<TargetKind, readonly string[]>;

/** Replaces ${VAR} in every string, reporting unset ones by field path (left as written, so the schema does not report them again). */
function substituteEnvDeep(node: unknown, env: NodeJS.ProcessEnv, path: PropertyKey[], problems: string[]): unknown {
  if (typeof node === 'string') {
    const unset: string[] = [];
    const value = substituteEnv(node, env, unset);
    for (const name of unset) problems.push(`${formatPath(path) || '(root)'}: environment variable ${name} is not set`);
    return value;
  }
  if (Array.isArray(node)) return node.map((item, index) => substituteEnvDeep(item, env, [...path, index], problems));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, substituteEnvDeep(value, env, [...path, key], problems)]),
    );
  }
  return node;
}

/** Checks reported even when other fields are wrong: no two targets share a name (it labels every series), no unknown collector. */
function targetListProblems(raw: unknown, known: KnownCollectors | undefined): string[] {
  const targets = (raw as { targets?: unknown } | undefined)?.targets;
  if (!Array.isArray(targets)) return [];
  const seen = new Set<string>();
  const problems: string[] = [];
  targets.forEach((target: unknown, index) => {
    const { name, kind, collectors } = (target ?? {}) as { name?: unknown; kind?: unknown; collectors?: unknown };
    if (typeof name === 'string' && seen.has(name)) problems.push(`targets[${index}].name: duplicate target name "${name}"`);
    if (typeof name === 'string') seen.add(name);
    const names = known && targetKinds.includes(kind as TargetKind) ? known[kind as TargetKind] : undefined;
    if (!names || !collectors || typeof collectors !== 'object') return;
    for (const collector of Object.keys(collectors).filter((collector) => !names.includes(collector))) {
      problems.push(`targets[${index}].collectors.${collector}: no such collector for kind ${String(kind)} (known: ${names.join(', ')})`);
    }
  });
  return problems;
}

/** The field a problem names (`web.port: ...`). */
function fieldOf(problem: string): string {
  return problem.slice(0, problem.indexOf(': '));
}

/** Validates an already parsed document (YAML or object); throws ConfigError listing every problem. */
export function parseConfig(raw: unknown, options: { env?: NodeJS.ProcessEnv; knownCollectors?: KnownCollectors } = {}): ExporterConfig {
  const problems: string[] = [];
  const substituted = substituteEnvDeep(raw ?? {}, options.env ?? process.env, [], problems);
  // A field whose variable is unset keeps its ${VAR} text: the schema's objection to that text would be a second,
  // misleading message for the same field ("${SHARDS}" must be a whole number).
  const unsetFields = new Set(problems.map(fieldOf));
  problems.push(...targetListProblems(substituted, options.knownCollectors));
  const checked = check(configSchema, substituted, { whole: '(root)' });
  const schemaProblems = checked.ok ? [] : checked.problems.filter((problem) => !unsetFields.has(fieldOf(problem)));
  if (!checked.ok || problems.length > 0) throw new ConfigError([...problems, ...schemaProblems]);
  return checked.value;
}

export function loadConfigFile(file: string, options: { env?: NodeJS.ProcessEnv; knownCollectors?: KnownCollectors } = {}): ExporterConfig {
  const read = readYamlFile(file);
  if ('problems' in read) throw new ConfigError(read.problems);
  return parseConfig(read.value, options);
}
