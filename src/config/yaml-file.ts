/**
 * The configuration file as text on disk: YAML read and `${VAR}` replaced.
 * Used by the config loader and by tracing, which reads its section before
 * the rest of the exporter loads: so this module imports only node built-ins
 * and `yaml`.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The parsed document, or one problem per error, each naming the file. */
export function readYamlFile(file: string): { value: unknown } | { problems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problems: [`${file}: cannot read the configuration file (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  const document = parseDocument(text);
  if (document.errors.length === 0) return { value: document.toJS() };
  return {
    problems: document.errors.map((e) => `${file}: YAML syntax error at line ${e.linePos?.[0]?.line ?? '?'}: ${e.message.split('\n')[0]}`),
  };
}

/** Replaces each ${VAR} by its value; an unset one is left as written and its name added to `unset`. */
export function substituteEnv(text: string, env: NodeJS.ProcessEnv, unset: string[]): string {
  return text.replace(ENV_REF, (reference, name: string) => {
    const value = env[name];
    if (value !== undefined) return value;
    unset.push(name);
    return reference;
  });
}
