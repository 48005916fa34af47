import type { CollectorRecord } from '../snapshot/store';
import { VERSION } from '../version';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function resultOf(record: CollectorRecord): string {
  if (record.lastRunEndAt === undefined) return 'waiting for the first run';
  const when = new Date(record.lastRunEndAt).toISOString();
  return record.lastRunSucceeded
    ? `ok at ${when} (${(record.lastDurationSeconds ?? 0).toFixed(2)} s, ${record.result?.series ?? 0} series)`
    : `FAILED at ${when}: ${record.lastError ?? 'unknown error'}`;
}

/** The landing page at /: every target with each collector's last result. */
export function landingPage(records: readonly CollectorRecord[]): string {
  const byTarget = new Map<string, CollectorRecord[]>();
  for (const record of records) byTarget.set(record.target, [...(byTarget.get(record.target) ?? []), record]);
  const sections = [...byTarget].map(([target, list]) => {
    const rows = list
      .map((r) => {
        const cells = [escapeHtml(r.collector), escapeHtml(resultOf(r)), r.runs, r.failures].map((cell) => `<td>${cell}</td>`).join('');
        return `<tr class="${r.lastRunSucceeded === false ? 'failed' : ''}">${cells}</tr>`;
      })
      .join('\n');
    const probe = `<a href="/probe?target=${encodeURIComponent(target)}">probe</a>`;
    return `<h2>${escapeHtml(target)} <small>(${escapeHtml(list[0]?.kind ?? '')})</small> ${probe}</h2>
<table><tr><th>collector</th><th>last result</th><th>runs</th><th>failures</th></tr>
${rows}
</table>`;
  });
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>dataprotect-exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}tr.failed td{background:#fdd}</style>
</head><body>
<h1>dataprotect-exporter ${escapeHtml(VERSION)}</h1>
<p><a href="/metrics">/metrics</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a></p>
${sections.join('\n') || '<p>No targets configured for this replica.</p>'}
</body></html>
`;
}
