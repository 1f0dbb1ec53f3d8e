// Histogram functions over classic histograms (series with an `le` label). Native histograms
// are out of scope: the native-only functions have nothing to read in float data and return
// no series, exactly as Prometheus does for float samples.

import type { Labels } from '../storageapi/index.ts';
import { bucketFraction, bucketQuantile, formatOpenMetricsFloat, parseGoFloat, type Bucket } from './histogram.ts';
import { dropLabels, getLabel, labelsKey, setLabel } from './labels.ts';
import { mergeSameLabels, scalarArg, stringArg, vector, vectorArg, type TransformCall, type TransformFunction } from './transform-call.ts';
import { newSeries, type Series } from './types.ts';

const BUCKET_EXCLUDED = new Set(['__name__', '__type__', '__unit__', 'le']);
const LE = new Set(['le']);

interface HistogramGroup {
  readonly labels: Labels;
  readonly members: { readonly le: number; readonly s: Series }[];
}

/**
 * bucketGroups groups bucket series by their labels without le (the metric name stays part
 * of the key, so two histograms never mix); a group's output labels also lose the name.
 */
function bucketGroups(series: readonly Series[]): HistogramGroup[] {
  const groups = new Map<string, HistogramGroup>();
  for (const s of series) {
    const leText = getLabel(s.labels, 'le');
    const le = parseGoFloat(leText);
    if (leText === '' || Number.isNaN(le)) continue;
    const labels = dropLabels(s.labels, BUCKET_EXCLUDED);
    const key = labelsKey(dropLabels(s.labels, LE));
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { labels, members: [] }));
    g.members.push({ le, s });
  }
  return [...groups.values()];
}

/**
 * perGroup computes one value per group and step from the group's buckets at that step. The
 * members are put in bucket order once per group (a stable sort, as bucketQuantile's own, so
 * each step's buckets come in the order it would give them) and their Bucket objects are
 * refilled at every step; without labelsOf a group has one output series.
 */
function perGroup(c: TransformCall, series: readonly Series[], f: (buckets: Bucket[], step: number) => number, labelsOf?: (ls: Labels, step: number) => Labels): Series[] {
  const n = c.grid.n;
  const out: Series[] = [];
  for (const g of bucketGroups(series)) {
    const members = g.members.slice().sort((a, b) => a.le - b.le);
    const slots: Bucket[] = members.map((m) => ({ upperBound: m.le, count: 0 }));
    const buckets: Bucket[] = [];
    const byLabels = new Map<string, Series>();
    let single: Series | undefined;
    for (let i = 0; i < n; i++) {
      buckets.length = 0;
      for (let k = 0; k < members.length; k++) {
        const s = members[k]!.s;
        if (s.present[i] !== 1) continue;
        const b = slots[k]!;
        b.count = s.values[i]!;
        buckets.push(b);
      }
      if (buckets.length === 0) continue;
      let s: Series | undefined;
      if (labelsOf === undefined) {
        s = single ??= newSeries(g.labels, n, true);
      } else {
        const labels = labelsOf(g.labels, i);
        const key = labelsKey(labels);
        s = byLabels.get(key);
        if (s === undefined) byLabels.set(key, (s = newSeries(labels, n, true)));
      }
      s.values[i] = f(buckets, i);
      s.present[i] = 1;
    }
    if (single !== undefined) out.push(single);
    out.push(...byLabels.values());
  }
  return mergeSameLabels(out);
}

const nativeOnly: TransformFunction = (c) => {
  vectorArg(c, 0);
  return vector([]);
};

/** HISTOGRAM_TRANSFORMS: histogram_* functions. */
export const HISTOGRAM_TRANSFORMS: Readonly<Record<string, TransformFunction>> = {
  histogram_quantile: (c) => {
    const q = scalarArg(c, 0);
    return vector(perGroup(c, vectorArg(c, 1), (b, i) => bucketQuantile(q[i]!, b)));
  },
  histogram_quantiles: (c) => {
    const label = stringArg(c, 1);
    const series = vectorArg(c, 0);
    const out: Series[] = [];
    for (let a = 2; a < c.args.length; a++) {
      const q = scalarArg(c, a);
      out.push(...perGroup(c, series, (b, i) => bucketQuantile(q[i]!, b), (ls, i) => setLabel(ls, label, formatOpenMetricsFloat(q[i]!))));
    }
    return vector(mergeSameLabels(out));
  },
  histogram_fraction: (c) => {
    const lower = scalarArg(c, 0);
    const upper = scalarArg(c, 1);
    return vector(perGroup(c, vectorArg(c, 2), (b, i) => bucketFraction(lower[i]!, upper[i]!, b)));
  },
  histogram_count: nativeOnly,
  histogram_sum: nativeOnly,
  histogram_avg: nativeOnly,
  histogram_stddev: nativeOnly,
  histogram_stdvar: nativeOnly,
  // MetricsQL: the share of observations at or below le.
  histogram_share: (c) => {
    const le = scalarArg(c, 0);
    return vector(perGroup(c, vectorArg(c, 1), (b, i) => bucketFraction(-Infinity, le[i]!, b)));
  },
};
