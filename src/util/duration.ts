/**
 * Durations in configuration: a number of seconds, or a Prometheus-style string
 * such as "90s", "5m", "1h30m", "7d". Returned in milliseconds.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?(ms|s|m|h|d|w))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!DURATION_RE.test(text)) return undefined;
  let total = 0;
  for (const match of text.matchAll(PART_RE)) total += Number(match[1]) * (UNIT_MS[match[2] as string] ?? 0);
  return total;
}
