import { readFileSync } from 'node:fs';
import { readYamlFile, substituteEnv } from './yaml-file';
import { configSchema, type ParsedConfig, type ParsedTarget, type TargetKind } from './schema';
import { Secret, readSecretFile } from '../util/secret';
import { check, formatPath } from '../util/validation';

export type { TargetKind } from './schema';

/** A target as the rest of the exporter sees it: secrets resolved and wrapped, CA loaded. Durations are milliseconds. */
export interface TargetConfig extends Omit<ParsedTarget, 'password' | 'passwordFile' | 'tls' | 'url'> {
  /** base URL without a trailing slash */
  url: string;
  password: Secret;
  tls: { caFile?: string; ca?: string; insecureSkipVerify: boolean };
}

/** The whole configuration; every duration field is in milliseconds. */
export interface ExporterConfig extends Omit<ParsedConfig, 'targets'> {
  targets: TargetConfig[];
}

/** One message per problem, each naming the field path, e.g. `targets[0].url: must be an http:// or https:// URL`. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Names of the collectors that exist for each target kind, to reject typos in `collectors:`. */
export type KnownCollectors = Record<TargetKind, readonly string[]>;

/**
 * Replaces ${VAR} in every string of the document, reporting unset variables by field path
 * (an unset one is left as written, so the schema does not report the same field again).
 */
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

function resolveTarget(target: ParsedTarget, index: number, known: KnownCollectors | undefined, problems: string[]): TargetConfig {
  const at = `targets[${index}]`;
  let password = new Secret(target.password ?? '');
  if (target.passwordFile) {
    const read = readSecretFile(target.passwordFile);
    if ('problem' in read) problems.push(`${at}.passwordFile: ${read.problem}`);
    else password = read.secret;
  }
  let ca: string | undefined;
  if (target.tls.caFile) {
    try {
      ca = readFileSync(target.tls.caFile, 'utf8');
    } catch (error) {
      problems.push(`${at}.tls.caFile: cannot read ${target.tls.caFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  for (const name of Object.keys(target.collectors)) {
    if (known && !known[target.kind].includes(name)) {
      problems.push(`${at}.collectors.${name}: no such collector for kind ${target.kind} (known: ${known[target.kind].join(', ')})`);
    }
  }
  const { password: _p, passwordFile: _f, tls, url, ...rest } = target;
  return {
    ...rest,
    url: url.replace(/\/+$/, ''),
    password,
    tls: { ...(tls.caFile ? { caFile: tls.caFile } : {}), ...(ca ? { ca } : {}), insecureSkipVerify: tls.insecureSkipVerify },
  };
}

/**
 * Target names label every series, so two targets may not share one (checked
 * on the raw list: reported even when other fields are wrong).
 */
function duplicateNames(raw: unknown): string[] {
  const targets = (raw as { targets?: unknown } | undefined)?.targets;
  if (!Array.isArray(targets)) return [];
  const seen = new Set<string>();
  const problems: string[] = [];
  targets.forEach((target: unknown, index) => {
    const name = (target as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    if (seen.has(name)) problems.push(`targets[${index}].name: duplicate target name "${name}"`);
    seen.add(name);
  });
  return problems;
}

/** Validates an already parsed document (YAML or object); throws ConfigError listing every problem. */
export function parseConfig(raw: unknown, options: { env?: NodeJS.ProcessEnv; knownCollectors?: KnownCollectors } = {}): ExporterConfig {
  const problems: string[] = [];
  const substituted = substituteEnvDeep(raw ?? {}, options.env ?? process.env, [], problems);
  problems.push(...duplicateNames(substituted));
  const checked = check(configSchema, substituted, { whole: '(root)' });
  if (!checked.ok) throw new ConfigError([...problems, ...checked.problems]);
  const targets = checked.value.targets.map((target, index) => resolveTarget(target, index, options.knownCollectors, problems));
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...checked.value, targets };
}

export function loadConfigFile(file: string, options: { env?: NodeJS.ProcessEnv; knownCollectors?: KnownCollectors } = {}): ExporterConfig {
  const read = readYamlFile(file);
  if ('problems' in read) throw new ConfigError(read.problems);
  return parseConfig(read.value, options);
}
