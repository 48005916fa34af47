/**
 * The exporter child's node flags. `docker` stands for the flags the shipped
 * Dockerfile gives node (its NODE_OPTIONS and the flags of its ENTRYPOINT),
 * read from the Dockerfile itself so that the benchmark measures the settings
 * that ship, whatever they are today.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const DOCKERFILE = path.resolve(__dirname, '../../Dockerfile');

/** NODE_OPTIONS of `ENV NODE_OPTIONS="..."` in the Dockerfile; empty where it sets none. */
export function dockerfileNodeOptions(dockerfile = DOCKERFILE): string {
  return /^ENV\s+NODE_OPTIONS="([^"]*)"/m.exec(readFileSync(dockerfile, 'utf8'))?.[1] ?? '';
}

/** The node flags of `ENTRYPOINT ["node", flags..., "script"]` in the Dockerfile. */
export function dockerfileEntrypointFlags(dockerfile = DOCKERFILE): string[] {
  const match = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(readFileSync(dockerfile, 'utf8'));
  if (!match) throw new Error(`${dockerfile} has no ENTRYPOINT ["node", ...]`);
  const words = JSON.parse(match[1] as string) as string[];
  return words.slice(1).filter((word) => word.startsWith('--'));
}

/** The flags of an --exporter-node-options value: `docker`, or the flags themselves. */
export function exporterNodeOptions(value: string): string[] {
  if (value === 'docker') return [...dockerfileNodeOptions().split(' ').filter(Boolean), ...dockerfileEntrypointFlags()];
  return value.split(' ').filter(Boolean);
}
