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

/** The labels in catalog order: the same object when they already are (collectors usually build them so), else a copy. */
function inCatalogOrder(labels: Labels, family: MetricFamily): Labels {
  if (Object.keys(labels).every((key, index) => family.labels[index] === key)) return labels;
  return Object.fromEntries(family.labels.map((label) => [label, labels[label] as string]));
}

/** An output that passed the check, its labels in catalog order. */
export interface CheckedOutput {
  readonly samples: Sample[];
  readonly histograms: HistogramSample[];
}

/** The checks of one output: every series against its family, and no series twice. */
class OutputChecker {
  private readonly seen = new Set<string>();

  constructor(private readonly target: string) {}

  /** The series' labels in catalog order; throws when the series is not what its family allows, or was seen before. */
  private labelsOf(name: string, labels: Labels, expectHistogram: boolean): Labels {
    const family = metricFamily(name);
    if ((family.type === 'histogram') !== expectHistogram) throw new Error(`${name} is a ${family.type}, returned as ${expectHistogram ? 'a histogram' : 'a sample'}`);
    if (Object.keys(labels).length !== family.labels.length || family.labels.some((label) => typeof labels[label] !== 'string')) {
      throw new Error(`${name} needs labels [${family.labels.join(', ')}], got [${Object.keys(labels).join(', ')}]`);
    }
    if (labels.target !== undefined && labels.target !== this.target) throw new Error(`${name} has target="${labels.target}", expected "${this.target}"`);
    const ordered = inCatalogOrder(labels, family);
    const key = seriesKey(family, labels);
    if (this.seen.has(key)) throw new Error(`duplicate series ${name}${JSON.stringify(ordered)}`);
    this.seen.add(key);
    return ordered;
  }

  sample(sample: Sample): Sample {
    const labels = this.labelsOf(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    return labels === sample.labels ? sample : { ...sample, labels };
  }

  histogram(sample: HistogramSample): HistogramSample {
    const labels = this.labelsOf(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    return labels === sample.labels ? sample : { ...sample, labels };
  }
}

/**
 * Checks a collector's output against the metric catalog before it is
 * published, so a collector bug fails that run (visible through
 * dataprotect_collector_success) instead of serving wrong or unparseable
 * series. Labels come back in catalog order, so each series formats the same
 * way every time; samples whose labels already are in that order are kept as
 * they are (no copy).
 */
export function validateOutput(target: string, samples: readonly Sample[], histograms: readonly HistogramSample[]): CheckedOutput {
  const checker = new OutputChecker(target);
  const checkedSamples = samples.map((sample) => checker.sample(sample));
  return { samples: checkedSamples, histograms: histograms.map((histogram) => checker.histogram(histogram)) };
}
