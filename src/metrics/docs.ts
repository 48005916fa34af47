import { METRIC_FAMILIES } from './catalog';
import { COLLECTORS } from '../collectors/registry';

/** Families the runtime itself emits (not a collector). */
export const RUNTIME_FAMILIES = [
  'dataprotect_up',
  'dataprotect_collector_success',
  'dataprotect_collector_duration_seconds',
  'dataprotect_collector_last_success_timestamp_seconds',
  'dataprotect_collector_schedule_interval_seconds',
  'dataprotect_collector_runs_total',
  'dataprotect_collector_failures_total',
  'dataprotect_collector_skipped_runs_total',
  'dataprotect_api_requests_total',
  'dataprotect_api_request_duration_seconds',
  'dataprotect_exporter_build_info',
  'dataprotect_exporter_first_round_complete',
  'dataprotect_config_last_reload_successful',
  'dataprotect_config_last_reload_success_timestamp_seconds',
] as const;

/** Which collectors emit each family ("exporter" for the runtime's own). */
export function emitters(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const name of RUNTIME_FAMILIES) out.set(name, ['exporter']);
  for (const [kind, list] of Object.entries(COLLECTORS)) {
    for (const collector of list) {
      for (const metric of collector.metrics) out.set(metric, [...(out.get(metric) ?? []), `${kind}/${collector.name}`]);
    }
  }
  return out;
}

/** docs/metrics.md, generated from the catalog so the two cannot drift apart. */
export function metricsMarkdown(): string {
  const who = emitters();
  const sections: Array<[string, (name: string) => boolean]> = [
    ['The exporter itself', (n) => (RUNTIME_FAMILIES as readonly string[]).includes(n)],
    ['Management service', (n) => (who.get(n) ?? []).some((c) => c.startsWith('management/'))],
    ['Replication plugin', (n) => (who.get(n) ?? []).some((c) => c.startsWith('replication/'))],
    ['Storage appliance / management center', (n) => (who.get(n) ?? []).some((c) => c.startsWith('storage/'))],
  ];
  const placed = new Set<string>();
  let out = `# Metrics

Generated from \`src/metrics/catalog.ts\` by \`npm run docs:metrics\`; a test fails when this file and the
catalog (or what the collectors emit) disagree. Every series carries \`target\`, the configured target name.
Per-asset and per-VM series disappear at the next collection after the asset or VM disappears from the source;
a failing collector's series are kept for \`collection.staleAfter\` and then dropped.
`;
  for (const [title, belongs] of sections) {
    const rows = METRIC_FAMILIES.filter((family) => !placed.has(family.name) && belongs(family.name));
    if (rows.length === 0) continue;
    out += `\n## ${title}\n\n| metric | type | labels | collector | meaning |\n|---|---|---|---|---|\n`;
    for (const family of rows) {
      placed.add(family.name);
      out += `| \`${family.name}\` | ${family.type} | ${family.labels.join(', ')} | ${(who.get(family.name) ?? ['(none)']).join(', ')} | ${family.help} |\n`;
    }
  }
  const unplaced = METRIC_FAMILIES.filter((family) => !placed.has(family.name));
  if (unplaced.length > 0) {
    out += `\n## Not emitted by any collector yet\n\n${unplaced.map((f) => `- \`${f.name}\``).join('\n')}\n`;
  }
  return out;
}
