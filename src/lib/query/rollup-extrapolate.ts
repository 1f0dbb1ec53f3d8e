// rate, increase and delta with Prometheus' extrapolation towards the window edges: window by
// window (extrapolatedRate) and swept over every window of a series at once (sweepRate).

import type { RollupWindow, SweepWindows } from './rollup-window.ts';

/**
 * resetCounts: r[i] = the number of counter resets (drops) at j ≤ i, so whether a window [lo, hi)
 * holds a reset is r[hi-1] !== r[lo], in O(1). Empty when the series never resets (and holds no NaN).
 */
function resetCounts(vs: Float64Array): Float64Array {
  if (isMonotone(vs)) return new Float64Array(0);
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

export function extrapolatedRate(w: RollupWindow, isCounter: boolean, isRate: boolean): number {
  const resets = isCounter ? (w.scratch ?? (w.scratch = resetCounts(w.vs))) : NO_RESETS;
  const reset = isCounter && resets.length > 0 && resets[w.hi - 1] !== resets[w.lo];
  return extrapolate(w.ts, w.vs, w.lo, w.hi, w.start, w.end, w.rangeMs, reset, isCounter, isRate);
}

// sweepRate is extrapolatedRate over every window of a series (see RollupFunction.sweep).
// Counter resets are noticed as the window's end passes each sample (lastDrop: the newest index
// j with vs[j] < vs[j-1]), instead of a resetCounts pass over the series first: a window holds
// a reset exactly when lastDrop > lo. A counter whose samples never drop (one pass finds out:
// most counters do not reset within a query's range) skips that test at every step, a tenth to a
// fifth of the sweep's time on the S dir's counters.
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
// then advance without scanning timestamps, and its layout is the previous window's. Without
// resets such windows are computed in a run, a loop that reads only each window's first and
// last values; a counter far from zero (its first value at least twice its whole increase, as
// the S dir's cpu counters) skips the zero-point test too. On 3,734 regular counters × 1,440
// steps the sweep took 4.5–4.8 instead of 7.3–7.6 ns per step, 5.3 instead of 7.4 near zero.
export function sweepRate(s: SweepWindows, isCounter: boolean, isRate: boolean): boolean {
  const { ts, vs, values, present, end0, step, n, rangeMs, edgeMs } = s;
  const len = ts.length;
  const rangeS = rangeMs / 1000;
  const shift = regularShift(s);
  // monotone: a counter that never drops (only counters need to know).
  const monotone = isCounter && isMonotone(vs);
  // drops: whether lastDrop must be tracked at all (a counter that may drop somewhere).
  const drops = isCounter && !monotone;
  // cuts: whether some window's zero point may come closer than its start edge. Not in a
  // monotone counter whose first value is at least twice its whole increase: every window's
  // first value is then at least vs[0] and its change at most vs[len-1] - vs[0] (float
  // subtraction rounds monotonically), so no window passes the cut's test.
  const cuts = isCounter && !(monotone && vs[0]! >= 2 * (vs[len - 1]! - vs[0]!));
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
    if (shifted && !drops && hi + shift <= len) {
      // A run of shifted windows without resets: each holds [lo, lo + width) with the cached
      // layout, so only its first and last values are read.
      const width = hi - lo;
      const stop = Math.min(n, i + Math.floor((len - hi) / shift));
      if (cuts) {
        for (let j = i; j < stop; j++) {
          lo += shift;
          const first = vs[lo]!;
          values[j] = counterRate(first, vs[lo + width - 1]! - first, sampled, toStart, toEnd, factor, isRate, rangeS);
        }
      } else {
        for (let j = i; j < stop; j++) {
          lo += shift;
          values[j] = (vs[lo + width - 1]! - vs[lo]!) * factor;
        }
      }
      present.fill(1, i, stop);
      hi = lo + width;
      i = stop - 1;
      any = true;
      continue;
    }
    if (shifted && hi + shift <= len) {
      const from = hi;
      lo += shift;
      hi += shift;
      if (drops) for (let k = from; k < hi; k++) if (vs[k]! < vs[k - 1]!) lastDrop = k;
    } else {
      shifted = false;
      while (hi < len && ts[hi]! <= end) {
        if (drops && hi > 0 && vs[hi]! < vs[hi - 1]!) lastDrop = hi;
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
    if (lastDrop > lo) {
      values[i] = extrapolate(ts, vs, lo, hi, start, end, rangeMs, true, isCounter, isRate);
    } else if (cuts) {
      values[i] = counterRate(first, result, sampled, toStart, toEnd, factor, isRate, rangeS);
    } else {
      values[i] = result * factor;
    }
    present[i] = 1;
    any = true;
  }
  return any;
}

/**
 * counterRate: a counter window's value from its first value and its change, with the cached
 * layout's parts and factor: extrapolate's zero-point cut, the same operations on the same
 * operands, when the counter's zero point comes closer than the start edge.
 */
function counterRate(first: number, result: number, sampled: number, toStart: number, toEnd: number, factor: number, isRate: boolean, rangeS: number): number {
  if (result > 0 && first >= 0 && !(first >= 2 * result)) {
    const toZero = sampled * (first / result);
    if (toZero < toStart) {
      let f = (sampled + toZero + toEnd) / sampled;
      if (isRate) f /= rangeS;
      return result * f;
    }
  }
  return result * factor;
}

/** isMonotone: whether no sample is below the one before it (no counter reset) and none is NaN. */
function isMonotone(vs: Float64Array): boolean {
  const len = vs.length;
  let prev = len > 0 ? vs[0]! : 0;
  if (prev !== prev) return false;
  for (let i = 1; i < len; i++) {
    const v = vs[i]!;
    if (!(v >= prev)) return false;
    prev = v;
  }
  return true;
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
