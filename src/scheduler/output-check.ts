import { compositeKey } from '../util/composite-key';
import { metricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';

/**
 * Checks a collector's output against the catalog, so that a collector bug fails its run (dataprotect_collector_success) instead of
 * serving wrong series. Labels come back in catalog order, so a series always formats the same; samples already in order are not copied.
 */
export function validateOutput(
  target: string,
  samples: readonly Sample[],
  histograms: readonly HistogramSample[],
): { samples: Sample[]; histograms: HistogramSample[] } {
  const seen = new Set<string>();
  /** The series' labels in catalog order; throws when the series is not what its family allows, or was seen before. */
  const labelsOf = (name: string, labels: Labels, expectHistogram: boolean): Labels => {
    const family = metricFamily(name);
    if ((family.type === 'histogram') !== expectHistogram) {
      throw new Error(`${name} is a ${family.type}, returned as ${expectHistogram ? 'a histogram' : 'a sample'}`);
    }
    if (Object.keys(labels).length !== family.labels.length || family.labels.some((label) => typeof labels[label] !== 'string')) {
      throw new Error(`${name} needs labels [${family.labels.join(', ')}], got [${Object.keys(labels).join(', ')}]`);
    }
    if (labels.target !== undefined && labels.target !== target) {
      throw new Error(`${name} has target="${labels.target}", expected "${target}"`);
    }
    const ordered = Object.keys(labels).every((key, index) => family.labels[index] === key)
      ? labels
      : Object.fromEntries(family.labels.map((label) => [label, labels[label] as string]));
    const key = compositeKey([family.name, ...family.labels.map((label) => labels[label] as string)]);
    if (seen.has(key)) throw new Error(`duplicate series ${name}${JSON.stringify(ordered)}`);
    seen.add(key);
    return ordered;
  };
  const checkedSamples = samples.map((sample) => {
    const labels = labelsOf(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    return labels === sample.labels ? sample : { ...sample, labels };
  });
  const checkedHistograms = histograms.map((sample) => {
    const labels = labelsOf(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) {
      throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    }
    return labels === sample.labels ? sample : { ...sample, labels };
  });
  return { samples: checkedSamples, histograms: checkedHistograms };
}
