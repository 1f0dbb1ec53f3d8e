// Rollup functions PromQL defines (functions over a range vector), with Prometheus 3 semantics.

import { QueryError } from './errors.ts';
import { KahanSum, linearRegression, mean, quantile, variance } from './math.ts';
import { extrapolatedRate, sweepRate } from './rollup-extrapolate.ts';
import type { RollupFunction, RollupWindow, SweepWindows } from './rollup-window.ts';

// sweepMean is avg_over_time over every window of a series (see RollupFunction.sweep). When
// every value is an integer and their magnitudes sum below 2^53, every sum of any of them is an
// exact double, so mean()'s compensated sum of a window is exactly its integer sum (the
// compensation stays 0) and a window's sum can be carried from the previous window — one add as
// a sample enters, one subtract as it leaves — instead of summing all its samples again: the
// same bits as mean(), in O(samples + steps) rather than O(samples per window × steps) (a 1 h
// window at a 60 s step summed each sample 60 times). Other series take mean() window by window.
function sweepMean(s: SweepWindows): boolean {
  const { ts, vs, values, present, end0, step, n, rangeMs, edgeMs } = s;
  const len = ts.length;
  let magnitude = 0;
  for (let i = 0; i < len && magnitude < MAX_EXACT_SUM; i++) {
    const v = vs[i]!;
    magnitude = Number.isInteger(v) ? magnitude + Math.abs(v) : Infinity;
  }
  const exact = magnitude < MAX_EXACT_SUM;
  let lo = 0;
  let hi = 0;
  let sum = 0;
  let any = false;
  for (let i = 0; i < n; i++) {
    const end = end0 + i * step;
    const start = end - rangeMs;
    while (hi < len && ts[hi]! <= end) {
      if (exact) sum += vs[hi]!;
      hi++;
    }
    while (lo < hi && ts[lo]! <= start - edgeMs) {
      if (exact) sum -= vs[lo]!;
      lo++;
    }
    if (hi === lo) continue;
    // mean() returns sum / count + c / count with c = +0: the same as sum / count, whose zero is
    // +0 either way (an exact zero sum of several terms is +0; the carried sum starts at +0).
    values[i] = exact ? sum / (hi - lo) : mean(vs, lo, hi);
    present[i] = 1;
    any = true;
  }
  return any;
}

// Integers whose magnitudes sum below this add up exactly in doubles, in any order.
const MAX_EXACT_SUM = 2 ** 53;

/** interpolate is the value at t on the line through (t1, y1) and (t2, y2); a counter restarts at 0. */
export function interpolate(t1: number, y1: number, t2: number, y2: number, t: number, isCounter: boolean): number {
  const a = isCounter && y2 < y1 ? 0 : y1;
  return a + ((y2 - a) * (t - t1)) / (t2 - t1);
}

// firstAtOrBefore: the last sample at or before t among [lo, hi-1), or lo (Prometheus' rule).
function firstAtOrBefore(ts: Float64Array, lo: number, hi: number, t: number): number {
  let k = lo;
  while (k < hi - 1 && !(ts[k]! > t)) k++;
  return Math.max(lo, k - 1);
}

// extendedRate implements rate/increase/delta for anchored and smoothed ranges: the change
// between the values at the range edges (the sample at or before the start, or interpolated).
function extendedRate(w: RollupWindow, smoothed: boolean, isCounter: boolean, isRate: boolean): number | undefined {
  const { ts, vs, lo, hi, start, end } = w;
  let first = firstAtOrBefore(ts, lo, hi, start);
  let last = hi - 1;
  if (smoothed) {
    let k = lo;
    while (k < hi - 1 && !(ts[k]! >= end)) k++;
    last = k;
  }
  // No value when every sample lies before the range, or (smoothed) after it.
  if (ts[last]! <= start || ts[first]! > end) return undefined;
  const left = smoothed && ts[first]! < start ? interpolate(ts[first]!, vs[first]!, ts[first + 1]!, vs[first + 1]!, start, isCounter) : vs[first]!;
  const right = smoothed && last > lo && ts[last]! > end ? interpolate(ts[last - 1]!, vs[last - 1]!, ts[last]!, vs[last]!, end, isCounter) : vs[last]!;
  let result = right - left;
  if (isCounter) {
    if (ts[first]! <= start) first++;
    if (ts[last]! >= end) last--;
    let prev = left;
    for (let i = first; i <= last; i++) {
      if (vs[i]! < prev) result += prev;
      prev = vs[i]!;
    }
    if (right < prev) result += prev;
  }
  return isRate ? result / (w.rangeMs / 1000) : result;
}

// anchoredCount counts changes or resets starting from the last sample at or before the range start.
function anchoredCount(w: RollupWindow, counts: (prev: number, cur: number) => boolean): number | undefined {
  if (w.ts[w.hi - 1]! <= w.start) return undefined;
  let n = 0;
  for (let i = firstAtOrBefore(w.ts, w.lo, w.hi, w.start) + 1; i < w.hi; i++) if (counts(w.vs[i - 1]!, w.vs[i]!)) n++;
  return n;
}

const changed = (a: number, b: number): boolean => a !== b && !(a !== a && b !== b);
const reset = (a: number, b: number): boolean => b < a;

const rateLike = (isCounter: boolean, isRate: boolean): RollupFunction['extended'] => ({
  anchored: true, smoothed: true, compute: (w, smoothed) => extendedRate(w, smoothed, isCounter, isRate),
});

// instantValue implements irate/idelta from the last two samples.
function instantValue(w: RollupWindow, isRate: boolean): number | undefined {
  const a = w.hi - 2;
  const b = w.hi - 1;
  const interval = w.ts[b]! - w.ts[a]!;
  if (interval === 0) return undefined;
  const va = w.vs[a]!;
  const vb = w.vs[b]!;
  const result = isRate && vb < va ? vb : vb - va;
  return isRate ? result / (interval / 1000) : result;
}

function extremum(w: RollupWindow, better: (cur: number, best: number) => boolean, wantTime: boolean): number {
  let best = w.vs[w.lo]!;
  let at = w.ts[w.lo]!;
  for (let i = w.lo; i < w.hi; i++) {
    const v = w.vs[i]!;
    if (better(v, best)) {
      best = v;
      at = w.ts[i]!;
    }
  }
  return wantTime ? at / 1000 : best;
}

function doubleExponentialSmoothing(w: RollupWindow): number | undefined {
  const [sf = NaN, tf = NaN] = w.params;
  if (!(sf > 0 && sf < 1)) throw new QueryError(`invalid smoothing factor. Expected: 0 < sf < 1, got: ${sf}`);
  if (!(tf > 0 && tf < 1)) throw new QueryError(`invalid trend factor. Expected: 0 < tf < 1, got: ${tf}`);
  const { vs, lo, hi } = w;
  let s0 = 0;
  let s1 = vs[lo]!;
  let b = vs[lo + 1]! - vs[lo]!;
  for (let i = lo + 1; i < hi; i++) {
    const x = sf * vs[i]!;
    if (i > lo + 1) b = tf * (s1 - s0) + (1 - tf) * b;
    const y = (1 - sf) * (s1 + b);
    s0 = s1;
    s1 = x + y;
  }
  return s1;
}

function sliceValues(w: RollupWindow): Float64Array {
  return w.vs.slice(w.lo, w.hi);
}

/** PROMETHEUS_ROLLUPS: the range-vector functions of the Prometheus 3 function list. */
export const PROMETHEUS_ROLLUPS: Readonly<Record<string, RollupFunction>> = {
  rate: { minSamples: 2, compute: (w) => extrapolatedRate(w, true, true), sweep: (s) => sweepRate(s, true, true), extended: rateLike(true, true) },
  increase: { minSamples: 2, compute: (w) => extrapolatedRate(w, true, false), sweep: (s) => sweepRate(s, true, false), extended: rateLike(true, false) },
  delta: { minSamples: 2, compute: (w) => extrapolatedRate(w, false, false), sweep: (s) => sweepRate(s, false, false), extended: rateLike(false, false) },
  irate: { minSamples: 2, compute: (w) => instantValue(w, true) },
  idelta: { minSamples: 2, compute: (w) => instantValue(w, false) },
  avg_over_time: { minSamples: 1, compute: (w) => mean(w.vs, w.lo, w.hi), sweep: sweepMean },
  count_over_time: { minSamples: 1, compute: (w) => w.hi - w.lo },
  sum_over_time: {
    minSamples: 1,
    compute: (w) => {
      const k = new KahanSum();
      for (let i = w.lo; i < w.hi; i++) k.add(w.vs[i]!);
      return k.value();
    },
  },
  min_over_time: { minSamples: 1, compute: (w) => extremum(w, (c, m) => c < m || m !== m, false) },
  max_over_time: { minSamples: 1, compute: (w) => extremum(w, (c, m) => c > m || m !== m, false) },
  ts_of_min_over_time: { minSamples: 1, compute: (w) => extremum(w, (c, m) => c <= m || m !== m, true) },
  ts_of_max_over_time: { minSamples: 1, compute: (w) => extremum(w, (c, m) => c >= m || m !== m, true) },
  first_over_time: { minSamples: 1, keepName: true, compute: (w) => w.vs[w.lo]! },
  last_over_time: { minSamples: 1, keepName: true, compute: (w) => w.vs[w.hi - 1]! },
  ts_of_first_over_time: { minSamples: 1, compute: (w) => w.ts[w.lo]! / 1000 },
  ts_of_last_over_time: { minSamples: 1, compute: (w) => w.ts[w.hi - 1]! / 1000 },
  quantile_over_time: { minSamples: 1, compute: (w) => quantile(w.params[0] ?? NaN, sliceValues(w)) },
  stddev_over_time: { minSamples: 1, compute: (w) => Math.sqrt(variance(w.vs, w.lo, w.hi)) },
  stdvar_over_time: { minSamples: 1, compute: (w) => variance(w.vs, w.lo, w.hi) },
  mad_over_time: {
    minSamples: 1,
    compute: (w) => {
      const vals = sliceValues(w);
      // A NaN sample makes the result NaN rather than being silently dropped.
      if (vals.some((v) => v !== v)) return NaN;
      const median = quantile(0.5, vals);
      return quantile(0.5, vals.map((v) => Math.abs(v - median)));
    },
  },
  present_over_time: { minSamples: 1, compute: () => 1 },
  // absent_over_time's output is assembled by the engine from where no series had samples.
  absent_over_time: { minSamples: 1, compute: () => 1 },
  changes: {
    minSamples: 1,
    compute: (w) => {
      let n = 0;
      for (let i = w.lo + 1; i < w.hi; i++) if (changed(w.vs[i - 1]!, w.vs[i]!)) n++;
      return n;
    },
    extended: { anchored: true, smoothed: false, compute: (w) => anchoredCount(w, changed) },
  },
  resets: {
    minSamples: 1,
    compute: (w) => {
      let n = 0;
      for (let i = w.lo + 1; i < w.hi; i++) if (reset(w.vs[i - 1]!, w.vs[i]!)) n++;
      return n;
    },
    extended: { anchored: true, smoothed: false, compute: (w) => anchoredCount(w, reset) },
  },
  deriv: { minSamples: 2, compute: (w) => linearRegression(w.ts, w.vs, w.lo, w.hi, w.ts[w.lo]!)[0] },
  predict_linear: {
    minSamples: 2,
    compute: (w) => {
      const [slope, intercept] = linearRegression(w.ts, w.vs, w.lo, w.hi, w.evalTime);
      return slope * (w.params[0] ?? NaN) + intercept;
    },
  },
  double_exponential_smoothing: { minSamples: 2, compute: doubleExponentialSmoothing },
  // holt_winters is the Prometheus 2 name of double_exponential_smoothing (MetricsQL keeps it).
  holt_winters: { minSamples: 2, compute: doubleExponentialSmoothing },
};
