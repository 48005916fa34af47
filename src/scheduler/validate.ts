import { metricFamily, type MetricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';
import { SLICE_MS, TimeSlices } from '../util/time-slices';

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
  const steps = validation(target, samples, histograms, () => false);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * validateOutput in slices of `sliceMs` with a turn of the event loop between
 * them: checking the 60,000-120,000 series of a large estate's result in one
 * synchronous step held every /metrics scrape waiting behind it.
 */
export async function validateOutputInSlices(
  target: string,
  samples: readonly Sample[],
  histograms: readonly HistogramSample[],
  sliceMs = SLICE_MS,
): Promise<Checked> {
  const slices = new TimeSlices(sliceMs);
  const steps = validation(target, samples, histograms, () => slices.due());
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await slices.next();
  }
}

/** The check itself, yielding whenever `due()` says the slice is used up. */
function* validation(target: string, samples: readonly Sample[], histograms: readonly HistogramSample[], due: () => boolean): Generator<void, Checked> {
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
  const checkedSamples: Sample[] = new Array(samples.length);
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index] as Sample;
    const labels = check(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    checkedSamples[index] = labels === sample.labels ? sample : { ...sample, labels };
    if (due()) yield;
  }
  const checkedHistograms: HistogramSample[] = new Array(histograms.length);
  for (let index = 0; index < histograms.length; index++) {
    const sample = histograms[index] as HistogramSample;
    const labels = check(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    checkedHistograms[index] = labels === sample.labels ? sample : { ...sample, labels };
    if (due()) yield;
  }
  return { samples: checkedSamples, histograms: checkedHistograms };
}
