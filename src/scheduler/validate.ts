import { metricFamily, type MetricFamily } from '../metrics/catalog';
import type { HistogramSample, Labels, Sample } from '../collectors/types';
import { SLICE_MS, TimeSlices } from '../util/time-slices';

/**
 * Series already seen in one output, per family, keyed by a hash of their
 * label values; series whose hashes meet are compared value by value, so the
 * check is exact whatever the values hold. The labels objects are the output's
 * own: on the 120,000 series of a large estate, joining the values into a key
 * string per series was most of this check's garbage.
 */
class SeenSeries {
  private readonly byFamily = new Map<string, Map<number, Labels | Labels[]>>();

  /** false when a series with these label values was already added */
  add(family: MetricFamily, labels: Labels): boolean {
    let seen = this.byFamily.get(family.name);
    if (!seen) this.byFamily.set(family.name, (seen = new Map()));
    const hash = valuesHash(family, labels);
    const earlier = seen.get(hash);
    if (earlier === undefined) {
      seen.set(hash, labels);
      return true;
    }
    const same = Array.isArray(earlier) ? earlier : [earlier];
    if (same.some((other) => sameValues(family, other, labels))) return false;
    seen.set(hash, [...same, labels]);
    return true;
  }
}

/**
 * FNV-1a over the label values' UTF-16 code units, each value closed by a
 * separator; 30 bits, so that a Map keeps it as a small integer. Exported for
 * the test that makes two series meet on it.
 */
export function valuesHash(family: MetricFamily, labels: Labels): number {
  let hash = 0x811c9dc5;
  for (const label of family.labels) {
    const value = labels[label] as string;
    for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
    hash = Math.imul(hash ^ 0x10000, 0x01000193); // not a code unit: "ab","c" and "a","bc" differ
  }
  return hash & 0x3fffffff;
}

function sameValues(family: MetricFamily, a: Labels, b: Labels): boolean {
  for (const label of family.labels) if (a[label] !== b[label]) return false;
  return true;
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
    for (const label of family.labels) if (typeof labels[label] !== 'string') throw wrongLabels();
    if (labels.target !== undefined && labels.target !== target) throw new Error(`${name} has target="${labels.target}", expected "${target}"`);
    let ordered: Labels = labels;
    if (!inCatalogOrder(labels, family)) {
      const copy: Record<string, string> = {};
      for (const label of family.labels) copy[label] = labels[label] as string;
      ordered = copy;
    }
    if (!seen.add(family, labels)) throw new Error(`duplicate series ${name}${JSON.stringify(ordered)}`);
    return ordered;
  };
  const checkedSamples: Sample[] = new Array(samples.length);
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index] as Sample;
    const labels = check(sample.name, sample.labels, false);
    if (!Number.isFinite(sample.value)) throw new Error(`${sample.name} has the non-finite value ${sample.value}`);
    checkedSamples[index] = labels === sample.labels ? sample : { name: sample.name, labels, value: sample.value };
    if (due()) yield;
  }
  const checkedHistograms: HistogramSample[] = new Array(histograms.length);
  for (let index = 0; index < histograms.length; index++) {
    const sample = histograms[index] as HistogramSample;
    const labels = check(sample.name, sample.labels, true);
    if (sample.bounds.length !== sample.bucketCounts.length) throw new Error(`${sample.name} has ${sample.bounds.length} bounds but ${sample.bucketCounts.length} bucket counts`);
    checkedHistograms[index] =
      labels === sample.labels ? sample : { name: sample.name, labels, bounds: sample.bounds, bucketCounts: sample.bucketCounts, count: sample.count, sum: sample.sum };
    if (due()) yield;
  }
  return { samples: checkedSamples, histograms: checkedHistograms };
}
