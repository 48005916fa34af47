import { metricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';

/**
 * Checks a collector's output against the metric catalog before it is
 * published, so a collector bug fails that run (visible through
 * dataprotect_collector_success) instead of serving wrong or unparseable
 * series. Labels come back in catalog order, so each series formats the same
 * way every time.
 */
export function validateOutput(
  target: string,
  samples: readonly Sample[],
  histograms: readonly HistogramSample[],
): { samples: Sample[]; histograms: HistogramSample[] } {
  const seen = new Set<string>();
  const check = (name: string, labels: Labels, expectHistogram: boolean): Labels => {
    const family = metricFamily(name);
    if ((family.type === 'histogram') !== expectHistogram) throw new Error(`${name} is a ${family.type}, returned as ${expectHistogram ? 'a histogram' : 'a sample'}`);
    const keys = Object.keys(labels);
    if (keys.length !== family.labels.length || family.labels.some((label) => typeof labels[label] !== 'string')) {
      throw new Error(`${name} needs labels [${family.labels.join(', ')}], got [${keys.join(', ')}]`);
    }
    if (labels.target !== undefined && labels.target !== target) throw new Error(`${name} has target="${labels.target}", expected "${target}"`);
    const ordered: Record<string, string> = {};
    for (const label of family.labels) ordered[label] = labels[label] as string;
    const key = name + JSON.stringify(ordered);
    if (seen.has(key)) throw new Error(`duplicate series ${name}${JSON.stringify(ordered)}`);
    seen.add(key);
    return ordered;
  };
  const checkedSamples = samples.map((sample) => {
    const labels = check(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    return { ...sample, labels };
  });
  const checkedHistograms = histograms.map((sample) => {
    const labels = check(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    return { ...sample, labels };
  });
  return { samples: checkedSamples, histograms: checkedHistograms };
}
