import { metricFamily, type MetricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';

/**
 * A series' identity within one output: its family name and label values,
 * each value prefixed with its length, so that no two different series join
 * into the same key whatever characters their values hold.
 */
function seriesKey(family: MetricFamily, labels: Labels): string {
  let key = family.name;
  for (const label of family.labels) {
    const value = labels[label] as string;
    key += `\u0000${value.length}:${value}`;
  }
  return key;
}

function labelCount(labels: Labels): number {
  let count = 0;
  for (const _key in labels) count++;
  return count;
}

/** Whether the labels' own key order is already the catalog's (collectors usually build them so). */
function inCatalogOrder(labels: Labels, family: MetricFamily): boolean {
  let index = 0;
  for (const key in labels) if (family.labels[index++] !== key) return false;
  return true;
}

type Checked = { samples: Sample[]; histograms: HistogramSample[] };

/**
 * Checks a collector's output against the metric catalog before it is
 * published, so a collector bug fails that run (visible through
 * dataprotect_collector_success) instead of serving wrong or unparseable
 * series. Labels come back in catalog order, so each series formats the same
 * way every time; samples whose labels already are in that order are kept as
 * they are (no copy).
 */
export function validateOutput(target: string, samples: readonly Sample[], histograms: readonly HistogramSample[]): Checked {
  const seen = new Set<string>();
  let lastFamily: MetricFamily | undefined;
  /** the labels in catalog order: the same object when they already are */
  const check = (name: string, labels: Labels, expectHistogram: boolean): Labels => {
    const family = lastFamily?.name === name ? lastFamily : (lastFamily = metricFamily(name));
    if ((family.type === 'histogram') !== expectHistogram) throw new Error(`${name} is a ${family.type}, returned as ${expectHistogram ? 'a histogram' : 'a sample'}`);
    const wrongLabels = () => new Error(`${name} needs labels [${family.labels.join(', ')}], got [${Object.keys(labels).join(', ')}]`);
    if (labelCount(labels) !== family.labels.length) throw wrongLabels();
    for (const label of family.labels) if (typeof labels[label] !== 'string') throw wrongLabels();
    if (labels.target !== undefined && labels.target !== target) throw new Error(`${name} has target="${labels.target}", expected "${target}"`);
    let ordered: Labels = labels;
    if (!inCatalogOrder(labels, family)) {
      const copy: Record<string, string> = {};
      for (const label of family.labels) copy[label] = labels[label] as string;
      ordered = copy;
    }
    const key = seriesKey(family, labels);
    if (seen.has(key)) throw new Error(`duplicate series ${name}${JSON.stringify(ordered)}`);
    seen.add(key);
    return ordered;
  };
  const checkedSamples: Sample[] = new Array(samples.length);
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index] as Sample;
    const labels = check(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    checkedSamples[index] = labels === sample.labels ? sample : { name: sample.name, labels, value: sample.value };
  }
  const checkedHistograms: HistogramSample[] = new Array(histograms.length);
  for (let index = 0; index < histograms.length; index++) {
    const sample = histograms[index] as HistogramSample;
    const labels = check(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    checkedHistograms[index] =
      labels === sample.labels ? sample : { name: sample.name, labels, bounds: sample.bounds, bucketCounts: sample.bucketCounts, count: sample.count, sum: sample.sum };
  }
  return { samples: checkedSamples, histograms: checkedHistograms };
}
