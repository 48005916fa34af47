/** The configuration's files on disk. Only node built-ins and `yaml`: tracing reads its section before the rest of the exporter loads. */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function readNamedFile(file: string): { content: Buffer } | { problem: string; code: string } {
  try {
    return { content: readFileSync(file) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { problem: `cannot read ${file} (${code})`, code };
  }
}

export function readYamlFile(file: string): { value: unknown } | { problems: string[] } {
  const read = readNamedFile(file);
  if ('problem' in read) return { problems: [`${file}: cannot read the configuration file (${read.code})`] };
  const document = parseDocument(read.content.toString('utf8'));
  if (document.errors.length === 0) return { value: document.toJS() };
  return {
    problems: document.errors.map((e) => `${file}: YAML syntax error at line ${e.linePos?.[0]?.line ?? '?'}: ${e.message.split('\n')[0]}`),
  };
}

export function substituteEnv(text: string, env: NodeJS.ProcessEnv, unset: string[]): string {
  return text.replace(ENV_REF, (reference, name: string) => {
    const value = env[name];
    if (value !== undefined) return value;
    unset.push(name);
    return reference;
  });
}
