import { metricFamily, type MetricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';

/**
 * Series already seen in one output, per family. The key of a series is its
 * label values in catalog order joined by NUL. A value containing NUL itself
 * (never seen in practice, but label values are arbitrary strings) would make
 * that join ambiguous, so such series are keyed by their JSON instead, in a
 * set of their own: a series with a NUL in a value cannot equal one without.
 * Much cheaper than a JSON key per series on the 120,000 series of a large estate.
 */
class SeenSeries {
  private readonly plain = new Map<string, Set<string>>();
  private readonly withNul = new Set<string>();

  /** false when this series was already added */
  add(name: string, values: readonly string[]): boolean {
    let key = '';
    for (let i = 0; i < values.length; i++) {
      const value = values[i] as string;
      if (value.includes('\u0000')) return this.addOnce(this.withNul, JSON.stringify([name, values]));
      key = i === 0 ? value : `${key}\u0000${value}`;
    }
    let keys = this.plain.get(name);
    if (!keys) this.plain.set(name, (keys = new Set()));
    return this.addOnce(keys, key);
  }

  private addOnce(set: Set<string>, key: string): boolean {
    if (set.has(key)) return false;
    set.add(key);
    return true;
  }
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

/**
 * Checks a collector's output against the metric catalog before it is
 * published, so a collector bug fails that run (visible through
 * dataprotect_collector_success) instead of serving wrong or unparseable
 * series. Labels come back in catalog order, so each series formats the same
 * way every time; samples whose labels already are in that order are kept as
 * they are (no copy).
 */
export function validateOutput(
  target: string,
  samples: readonly Sample[],
  histograms: readonly HistogramSample[],
): { samples: Sample[]; histograms: HistogramSample[] } {
  const seen = new SeenSeries();
  let lastFamily: MetricFamily | undefined;
  /** the labels in catalog order: the same object when they already are */
  const check = (name: string, labels: Labels, expectHistogram: boolean): Labels => {
    const family = lastFamily?.name === name ? lastFamily : (lastFamily = metricFamily(name));
    if ((family.type === 'histogram') !== expectHistogram) throw new Error(`${name} is a ${family.type}, returned as ${expectHistogram ? 'a histogram' : 'a sample'}`);
    const wrongLabels = () => new Error(`${name} needs labels [${family.labels.join(', ')}], got [${Object.keys(labels).join(', ')}]`);
    if (labelCount(labels) !== family.labels.length) throw wrongLabels();
    const values: string[] = [];
    for (const label of family.labels) {
      const value = labels[label];
      if (typeof value !== 'string') throw wrongLabels();
      values.push(value);
    }
    if (labels.target !== undefined && labels.target !== target) throw new Error(`${name} has target="${labels.target}", expected "${target}"`);
    let ordered: Labels = labels;
    if (!inCatalogOrder(labels, family)) {
      const copy: Record<string, string> = {};
      family.labels.forEach((label, index) => (copy[label] = values[index] as string));
      ordered = copy;
    }
    if (!seen.add(name, values)) throw new Error(`duplicate series ${name}${JSON.stringify(ordered)}`);
    return ordered;
  };
  const checkedSamples = samples.map((sample) => {
    const labels = check(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    return labels === sample.labels ? sample : { ...sample, labels };
  });
  const checkedHistograms = histograms.map((sample) => {
    const labels = check(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    return labels === sample.labels ? sample : { ...sample, labels };
  });
  return { samples: checkedSamples, histograms: checkedHistograms };
}
