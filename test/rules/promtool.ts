/**
 * Runs Prometheus's promtool for the rule and dashboard tests. promtool comes from
 * Debian's prometheus package; a missing promtool fails the tests (never skips them).
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export const MISSING_PROMTOOL =
  "promtool is not on PATH: npm test installs Debian's prometheus package (scripts/ensure-prometheus.sh) " +
  '(apt-get install -y prometheus gives /usr/bin/promtool and /usr/bin/prometheus)';

/** Absolute path of an executable found on PATH, or undefined. */
export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export function promtoolPath(): string {
  const found = findOnPath('promtool');
  if (!found) throw new Error(MISSING_PROMTOOL);
  return found;
}

export interface PromtoolResult {
  readonly code: number | null;
  /** stdout and stderr together: promtool splits its messages between them. */
  readonly output: string;
}

export function runPromtool(args: readonly string[], cwd?: string): PromtoolResult {
  const result = spawnSync(promtoolPath(), args, { cwd, encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** `promtool check rules`: exit code 0 when every file parses and every expression is valid PromQL. */
export function checkRules(files: readonly string[]): PromtoolResult {
  return runPromtool(['check', 'rules', ...files]);
}

/** `promtool test rules` on the given unit-test files; asynchronous, so that independent runs can overlap. */
export function testRules(files: readonly string[], cwd?: string): Promise<PromtoolResult> {
  return new Promise((resolve) => {
    execFile(promtoolPath(), ['test', 'rules', ...files], { cwd, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, output: `${stdout}${stderr}${error && code === null ? String(error) : ''}` });
    });
  });
}
