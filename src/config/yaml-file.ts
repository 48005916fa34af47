/**
 * The files of the configuration on disk: the YAML file with `${VAR}`
 * replaced, and the files it names. Used by the config loader and by
 * tracing, which reads its section before the rest of the exporter loads:
 * so this module imports only node built-ins and `yaml`.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A file the configuration reads, or why it cannot: `cannot read FILE (ENOENT)`. */
export function readNamedFile(file: string): { content: Buffer } | { problem: string; code: string } {
  try {
    return { content: readFileSync(file) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { problem: `cannot read ${file} (${code})`, code };
  }
}

/** The parsed document, or one problem per error, each naming the file. */
export function readYamlFile(file: string): { value: unknown } | { problems: string[] } {
  const read = readNamedFile(file);
  if ('problem' in read) return { problems: [`${file}: cannot read the configuration file (${read.code})`] };
  const document = parseDocument(read.content.toString('utf8'));
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
