/** The one formatter of the text exposition (format 0.0.4): collectors' samples, status series and self-metrics all become text here. */
import type { HistogramSample } from '../collectors/types';
import type { MetricFamily } from '../metrics/catalog';

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** prom-client's labels may hold numbers (a histogram's le). */
type LabelValues = Readonly<Record<string, string | number | undefined>>;

function formatLabels(labels: LabelValues, extra?: [string, string]): string {
  const parts: string[] = [];
  for (const key in labels) parts.push(`${key}="${escapeLabelValue(String(labels[key]))}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

export function formatSample(name: string, labels: LabelValues, value: number): string {
  return `${name}${formatLabels(labels)} ${formatValue(value)}\n`;
}

export function formatHistogram(sample: HistogramSample): string {
  let out = '';
  sample.bounds.forEach((bound, index) => {
    out += `${sample.name}_bucket${formatLabels(sample.labels, ['le', formatValue(bound)])} ${sample.bucketCounts[index] ?? 0}\n`;
  });
  out += `${sample.name}_bucket${formatLabels(sample.labels, ['le', '+Inf'])} ${sample.count}\n`;
  out += `${sample.name}_sum${formatLabels(sample.labels)} ${formatValue(sample.sum)}\n`;
  out += `${sample.name}_count${formatLabels(sample.labels)} ${sample.count}\n`;
  return out;
}

export function familyHeader(family: MetricFamily): string {
  const help = family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# HELP ${family.name} ${help}\n# TYPE ${family.name} ${family.type}\n`;
}
