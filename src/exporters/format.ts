/** The one formatter of the text exposition (format 0.0.4): collectors' samples, status series and self-metrics all become text here. */
import type { HistogramSample } from '../collectors/types';
import type { MetricFamily } from '../metrics/catalog';

/** The characters a label value escapes; most values have none, and are then returned as they are, after one scan. */
const NEEDS_ESCAPE = /[\\"\n]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** prom-client's labels may hold numbers (a histogram's le). */
type LabelValues = Readonly<Record<string, string | number | undefined>>;

type LabelPair = readonly [string, string];

/**
 * `{key="value",...}` with the labels in the order of `keys` (a catalog family's, so that a series always reads the same; the labels'
 * own by default) and `extra` last (a bucket's le); '' for no label.
 */
export function formatLabels(labels: LabelValues, keys: readonly string[] = Object.keys(labels), extra?: LabelPair): string {
  let out = '';
  for (const key of keys) out += `${out ? ',' : '{'}${key}="${escapeLabelValue(String(labels[key]))}"`;
  if (extra) out += `${out ? ',' : '{'}${extra[0]}="${escapeLabelValue(extra[1])}"`;
  return out ? `${out}}` : '';
}

export function formatSample(name: string, labels: LabelValues, value: number): string {
  return `${name}${formatLabels(labels)} ${formatValue(value)}\n`;
}

export function formatHistogram(sample: HistogramSample, keys?: readonly string[]): string {
  const labels = formatLabels(sample.labels, keys);
  let out = '';
  sample.bounds.forEach((bound, index) => {
    out += `${sample.name}_bucket${formatLabels(sample.labels, keys, ['le', formatValue(bound)])} ${sample.bucketCounts[index] ?? 0}\n`;
  });
  out += `${sample.name}_bucket${formatLabels(sample.labels, keys, ['le', '+Inf'])} ${sample.count}\n`;
  out += `${sample.name}_sum${labels} ${formatValue(sample.sum)}\n`;
  out += `${sample.name}_count${labels} ${sample.count}\n`;
  return out;
}

export function familyHeader(family: MetricFamily): string {
  const help = family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# HELP ${family.name} ${help}\n# TYPE ${family.name} ${family.type}\n`;
}
