/**
 * The exporter child's node flags. `docker` stands for the NODE_OPTIONS the
 * shipped Dockerfile sets, read from the Dockerfile itself so that the
 * benchmark measures the settings that ship, whatever they are today.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const DOCKERFILE = path.resolve(__dirname, '../../Dockerfile');

/** NODE_OPTIONS of `ENV NODE_OPTIONS="..."` in the Dockerfile. */
export function dockerfileNodeOptions(dockerfile = DOCKERFILE): string {
  const match = /^ENV\s+NODE_OPTIONS="([^"]*)"/m.exec(readFileSync(dockerfile, 'utf8'));
  if (!match) throw new Error(`${dockerfile} sets no ENV NODE_OPTIONS="..."`);
  return match[1] as string;
}

/** The flags of an --exporter-node-options value: `docker`, or the flags themselves. */
export function exporterNodeOptions(value: string): string[] {
  const flags = value === 'docker' ? dockerfileNodeOptions() : value;
  return flags.split(' ').filter(Boolean);
}
