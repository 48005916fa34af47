import { spawnSync } from 'node:child_process';

/** Runs `promtool check metrics` on exposition text; returns its complaints ('' when clean). */
export function promtoolCheckMetrics(text: string): string {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (result.error) throw new Error(`promtool is not installed (npm test installs Debian's prometheus package (scripts/ensure-prometheus.sh)): ${result.error.message}`);
  return `${result.stdout}${result.stderr}`.trim();
}
