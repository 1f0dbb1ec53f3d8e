// Rollup functions PromQL defines (functions over a range vector), with Prometheus 3 semantics.

import { QueryError } from './errors.ts';
import { KahanSum, linearRegression, mean, quantile, variance } from './math.ts';
import type { RollupFunction, RollupWindow, SweepWindows } from './rollup-window.ts';

/**
 * resetCounts: r[i] = the number of counter resets (drops) at j ≤ i, so whether a window [lo, hi)
 * holds a reset is r[hi-1] !== r[lo], in O(1). Empty when the series never resets.
 */
function resetCounts(vs: Float64Array): Float64Array {
  let any = false;
  for (let i = 1; i < vs.length && !any; i++) any = vs[i]! < vs[i - 1]!;
  if (!any) return new Float64Array(0);
  const r = new Float64Array(vs.length);
  for (let i = 1; i < vs.length; i++) r[i] = r[i - 1]! + (vs[i]! < vs[i - 1]! ? 1 : 0);
  return r;
}

const NO_RESETS = new Float64Array(0);

/**
 * extrapolate implements rate/increase/delta over the samples [lo, hi) (at least two) of a
 * window (start, end]: the change, corrected for counter resets (`reset`: the window holds a
 * drop and the series is a counter), extrapolated towards the window edges
 * when samples come close to them.
 */
function extrapolate(
  ts: Float64Array, vs: Float64Array, lo: number, hi: number, start: number, end: number, rangeMs: number,
  reset: boolean, isCounter: boolean, isRate: boolean,
): number {
  // The float operations follow Prometheus' order exactly (seconds, then the factor): results
  // must match bit for bit, since histogram_quantile turns a last-bit difference in a bucket
  // rate into another bucket when a rank falls on a bucket boundary.
  const last = hi - 1;
  let result = vs[last]! - vs[lo]!;
  if (reset) {
    // Add the value before each reset in sample order, as Prometheus does (bit-identical sums).
    let prev = vs[lo]!;
    for (let i = lo + 1; i <= last; i++) {
      const v = vs[i]!;
      if (v < prev) result += prev;
      prev = v;
    }
  }
  let toStart = (ts[lo]! - start) / 1000;
  let toEnd = (end - ts[last]!) / 1000;
  const sampled = (ts[last]! - ts[lo]!) / 1000;
  const avgGap = sampled / (hi - lo - 1);
  const threshold = avgGap * 1.1;
  if (toStart >= threshold) toStart = avgGap / 2;
  if (isCounter && result > 0 && vs[lo]! >= 0) {
    // A counter cannot go below zero: do not extrapolate past the point where it would.
    const toZero = sampled * (vs[lo]! / result);
    if (toZero < toStart) toStart = toZero;
  }
  if (toEnd >= threshold) toEnd = avgGap / 2;
  let factor = (sampled + toStart + toEnd) / sampled;
  if (isRate) factor /= rangeMs / 1000;
  return result * factor;
}

function extrapolatedRate(w: RollupWindow, isCounter: boolean, isRate: boolean): number {
  const resets = isCounter ? (w.scratch ?? (w.scratch = resetCounts(w.vs))) : NO_RESETS;
  const reset = isCounter && resets.length > 0 && resets[w.hi - 1] !== resets[w.lo];
  return extrapolate(w.ts, w.vs, w.lo, w.hi, w.start, w.end, w.rangeMs, reset, isCounter, isRate);
}

// sweepRate is extrapolatedRate over every window of a series (see RollupFunction.sweep).
// Counter resets are noticed as the window's end passes each sample (lastDrop: the newest index
// j with vs[j] < vs[j-1]), instead of a resetCounts pass over the series first: a window holds
// a reset exactly when lastDrop > lo.
//
// The extrapolation factor depends only on where the window's first and last samples sit
// (their distances to the window edges and to each other) and on how many samples it holds.
// With regular scrapes on a step-aligned grid these are the same for almost every window, so
// the factor — five float divisions — is computed once per distinct layout and reused: the same
// operations on the same inputs, hence the same bits as extrapolate(). The layout's edge
// distances are kept too, so a counter window whose zero point may come closer than the start
// edge (first value below twice the increase: a counter near zero, such as most histogram
// buckets) computes only the zero point and, when it cuts, extrapolate's last two operations
// with it. Only a window holding a counter reset takes extrapolate's own path.
//
// A series sampled at exactly regular integer timestamps whose interval divides the step moves
// its window by exactly step/interval samples at both ends from one step to the next, once the
// window has a sample before it and a sample after it (see regularShift): the window's bounds
// then advance without scanning timestamps, and its layout is the previous window's.
function sweepRate(s: SweepWindows, isCounter: boolean, isRate: boolean): boolean {
  const { ts, vs, values, present, end0, step, n, rangeMs, edgeMs } = s;
  const len = ts.length;
  const rangeS = rangeMs / 1000;
  const shift = regularShift(s);
  let lastDrop = -1;
  let lo = 0;
  let hi = 0;
  let any = false;
  // The layout the cached factor was computed for (NaN: none yet), and its parts in seconds.
  let toStartMs = NaN;
  let toEndMs = NaN;
  let sampledMs = NaN;
  let gaps = -1;
  let toStart = 0;
  let toEnd = 0;
  let sampled = 0;
  let factor = 0;
  // shifted: the previous window had the cached layout, a sample before it (lo > 0) and at
  // least two in it, so this one is that window moved by `shift` samples while samples remain.
  let shifted = false;
  for (let i = 0; i < n; i++) {
    const end = end0 + i * step;
    const start = end - rangeMs;
    if (shifted && hi + shift <= len) {
      const from = hi;
      lo += shift;
      hi += shift;
      for (let k = from; k < hi; k++) if (vs[k]! < vs[k - 1]!) lastDrop = k;
    } else {
      shifted = false;
      while (hi < len && ts[hi]! <= end) {
        if (hi > 0 && vs[hi]! < vs[hi - 1]!) lastDrop = hi;
        hi++;
      }
      while (lo < hi && ts[lo]! <= start - edgeMs) lo++;
      if (hi - lo < 2) continue;
      const a = ts[lo]! - start;
      const b = end - ts[hi - 1]!;
      const c = ts[hi - 1]! - ts[lo]!;
      if (a !== toStartMs || b !== toEndMs || c !== sampledMs || hi - lo - 1 !== gaps) {
        toStartMs = a;
        toEndMs = b;
        sampledMs = c;
        gaps = hi - lo - 1;
        // extrapolate's operations, in its order (see there).
        toStart = a / 1000;
        toEnd = b / 1000;
        sampled = c / 1000;
        const avgGap = sampled / gaps;
        const threshold = avgGap * 1.1;
        if (toStart >= threshold) toStart = avgGap / 2;
        if (toEnd >= threshold) toEnd = avgGap / 2;
        factor = (sampled + toStart + toEnd) / sampled;
        if (isRate) factor /= rangeS;
      }
      shifted = shift > 0 && lo > 0;
    }
    const first = vs[lo]!;
    const result = vs[hi - 1]! - first;
    if (isCounter && lastDrop > lo) {
      values[i] = extrapolate(ts, vs, lo, hi, start, end, rangeMs, true, isCounter, isRate);
    } else if (isCounter && result > 0 && first >= 0 && !(first >= 2 * result)) {
      // extrapolate's zero-point cut: the same operations on the same (cached) operands.
      const toZero = sampled * (first / result);
      if (toZero < toStart) {
        let f = (sampled + toZero + toEnd) / sampled;
        if (isRate) f /= rangeS;
        values[i] = result * f;
      } else {
        values[i] = result * factor;
      }
    } else {
      values[i] = result * factor;
    }
    present[i] = 1;
    any = true;
  }
  return any;
}

/**
 * regularShift: how many samples a window moves per step when the series' timestamps are
 * integers at exactly one interval apart, the interval divides the step, and the window bounds
 * are integers too (then every bound and timestamp sum below is exact); 0 otherwise. For such a
 * series, if window i holds [lo, hi) with lo > 0 and hi + shift <= len, window i+1 holds
 * [lo + shift, hi + shift): ts[lo-1] <= start - edge and ts[lo] > start - edge stay true with
 * every term moved by step = shift * interval, and likewise ts[hi-1] <= end < ts[hi].
 */
function regularShift(s: SweepWindows): number {
  const { ts, step } = s;
  const len = ts.length;
  if (len < 3 || !(step > 0) || !Number.isSafeInteger(step) || !Number.isSafeInteger(s.end0 + (s.n - 1) * step)) return 0;
  if (!Number.isSafeInteger(s.end0) || !Number.isSafeInteger(s.rangeMs) || !Number.isSafeInteger(s.edgeMs)) return 0;
  const t0 = ts[0]!;
  const d = ts[1]! - t0;
  if (!(d > 0) || !Number.isSafeInteger(t0) || !Number.isSafeInteger(ts[len - 1]!) || !Number.isSafeInteger(d) || step % d !== 0) return 0;
  let want = t0;
  for (let k = 1; k < len; k++) {
    want += d;
    if (ts[k] !== want) return 0;
  }
  return step / d;
}

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
