// Reducing aggregations (one output series per group): streaming per-group accumulators, and
// collectReduce for those that need every value of a group at a step.

import type { AggregateFunction, AggregateInput, GroupAccumulator } from './aggregate-input.ts';
import { quantile } from './math.ts';
import type { Series } from './types.ts';

// Per-group accumulators, written out per operator without per-point callbacks: their add
// loops run once per input point and dominate large aggregations.

/** SumAcc: Kahan–Neumaier sum per step. */
class SumAcc implements GroupAccumulator {
  private readonly s: Float64Array;
  private readonly c: Float64Array;
  private readonly seen: Uint8Array;

  constructor(n: number) {
    // One memory for the sums and their compensations: a typed array of its own costs ~1 µs.
    const f = new Float64Array(2 * n);
    this.s = f.subarray(0, n);
    this.c = f.subarray(n);
    this.seen = new Uint8Array(n);
  }

  // A step's first point is added to a sum of +0 like any other point, instead of taking a
  // first-point branch: 0 + x is x for any x but -0, whose sign the final s + c (c is never -0)
  // drops anyway, and the compensation stays 0, so every result is the same. A rollup's series
  // lack a point at some steps (a range query's first window holds one sample: no rate), so a
  // loop that waited for every step to be seen never ran: that general loop took 4.3–4.4 ns per
  // point with the first step empty, this one 2.6–3.1 (micro-benchmark, CPU time).
  // One test `t - t !== 0` finds an infinite sum, where the compensation is dropped, and a NaN
  // one, where it is dropped too: a NaN sum stays NaN, so its compensation never shows. The
  // loop's bound is the shortest array's length, which lets the compiler drop the index checks.
  add(p: Uint8Array, v: Float64Array): void {
    const { s, c, seen } = this;
    const n = Math.min(s.length, c.length, seen.length, p.length, v.length);
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      seen[i] = 1;
      const x = v[i]!;
      const sum0 = s[i]!;
      const t = sum0 + x;
      s[i] = t;
      if (t - t !== 0) c[i] = 0;
      else c[i] = c[i]! + (Math.abs(sum0) >= Math.abs(x) ? sum0 - t + x : x - t + sum0);
    }
  }

  finish(): { values: Float64Array; present: Uint8Array } {
    const { s, c } = this;
    const values = new Float64Array(s.length);
    for (let i = 0; i < values.length; i++) values[i] = s[i]! + c[i]!;
    return { values, present: this.seen };
  }
}

/** AvgAcc: a direct Kahan sum while it stays finite, then an incremental mean (Prometheus). */
class AvgAcc implements GroupAccumulator {
  private readonly s: Float64Array;
  private readonly c: Float64Array;
  private readonly m: Float64Array;
  private readonly cnt: Float64Array;
  private readonly inc: Uint8Array;
  private readonly seen: Uint8Array;
  // means: steps whose sum overflowed (inc). While it is 0, add runs addSums, which has no
  // first-point branch (as SumAcc.add) and no mean branch: the same operations.
  private means = 0;

  constructor(n: number) {
    // One memory for the per-step arrays: a typed array of its own costs ~1 µs to allocate.
    const f = new Float64Array(4 * n);
    this.s = f.subarray(0, n);
    this.c = f.subarray(n, 2 * n);
    this.m = f.subarray(2 * n, 3 * n);
    this.cnt = f.subarray(3 * n);
    this.inc = new Uint8Array(n);
    this.seen = new Uint8Array(n);
  }

  add(p: Uint8Array, v: Float64Array): void {
    if (this.means === 0) {
      this.addSums(p, v);
      return;
    }
    const { s, cnt, inc, seen } = this;
    for (let i = 0; i < seen.length; i++) {
      if (p[i] === 0) continue;
      const x = v[i]!;
      if (seen[i] === 0) {
        seen[i] = 1;
        s[i] = x;
        cnt[i] = 1;
        continue;
      }
      const count = ++cnt[i]!;
      if (inc[i] === 0) {
        if (this.addToSum(i, x)) continue;
        this.toMean(i, count);
      }
      this.addMean(i, x, count);
    }
  }

  // addSums is add's loop while every step's sum is finite. A step's first point is added to a
  // sum of +0 (see SumAcc.add); only an infinite one, which overflows that sum, is kept as the
  // sum as add's first-point branch keeps it.
  private addSums(p: Uint8Array, v: Float64Array): void {
    const { s, c, cnt, seen } = this;
    const n = Math.min(s.length, c.length, cnt.length, seen.length, p.length, v.length); // as SumAcc.add
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      seen[i] = 1;
      const x = v[i]!;
      const count = ++cnt[i]!;
      if (this.addToSum(i, x)) continue;
      if (count === 1) {
        s[i] = x;
        continue;
      }
      this.toMean(i, count);
      this.addMean(i, x, count);
    }
  }

  // addToSum adds x to step i's Kahan sum and returns true, or returns false (changing nothing)
  // when the sum would overflow, for the caller to switch the step to an incremental mean.
  private addToSum(i: number, x: number): boolean {
    const { s, c } = this;
    const sum0 = s[i]!;
    const t = sum0 + x;
    if (t === Infinity || t === -Infinity) return false;
    c[i] = c[i]! + (Math.abs(sum0) >= Math.abs(x) ? sum0 - t + x : x - t + sum0);
    s[i] = t;
    return true;
  }

  // toMean turns step i's sum of count - 1 points into their mean, for an incremental mean from here.
  private toMean(i: number, count: number): void {
    this.inc[i] = 1;
    this.means++;
    this.m[i] = this.s[i]! / (count - 1);
    this.c[i] = this.c[i]! / (count - 1);
  }

  // addMean adds x, the count-th point of step i, to its incremental mean.
  private addMean(i: number, x: number, count: number): void {
    const { c, m } = this;
    const q = (count - 1) / count;
    const add = x / count;
    const mq = q * m[i]!;
    const t = mq + add;
    c[i] = t === Infinity || t === -Infinity ? 0 : q * c[i]! + (Math.abs(mq) >= Math.abs(add) ? mq - t + add : add - t + mq);
    m[i] = t;
  }

  finish(): { values: Float64Array; present: Uint8Array } {
    const { s, c, m, cnt, inc } = this;
    const values = new Float64Array(s.length);
    for (let i = 0; i < values.length; i++) values[i] = inc[i] === 1 ? m[i]! + c[i]! : s[i]! / cnt[i]! + c[i]! / cnt[i]!;
    return { values, present: this.seen };
  }
}

/** CountAcc: number of points per step (or 1 for `group`). */
class CountAcc implements GroupAccumulator {
  private readonly cnt: Float64Array;
  private readonly one: boolean;

  constructor(n: number, one: boolean) {
    this.cnt = new Float64Array(n);
    this.one = one;
  }

  add(p: Uint8Array): void {
    const cnt = this.cnt;
    for (let i = 0; i < cnt.length; i++) cnt[i] = cnt[i]! + p[i]!;
  }

  finish(): { values: Float64Array; present: Uint8Array } {
    const cnt = this.cnt;
    const present = new Uint8Array(cnt.length);
    for (let i = 0; i < cnt.length; i++) present[i] = cnt[i]! > 0 ? 1 : 0;
    return { values: this.one ? new Float64Array(cnt.length).fill(1) : cnt, present };
  }
}

/** ExtremeAcc: max (or min); a NaN held value is always replaced, as Prometheus does. */
class ExtremeAcc implements GroupAccumulator {
  private readonly x: Float64Array;
  private readonly seen: Uint8Array;
  private readonly isMax: boolean;

  constructor(n: number, isMax: boolean) {
    this.x = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.isMax = isMax;
  }

  add(p: Uint8Array, v: Float64Array): void {
    const { x, seen, isMax } = this;
    for (let i = 0; i < seen.length; i++) {
      if (p[i] === 0) continue;
      const f = v[i]!;
      const cur = x[i]!;
      if (seen[i] === 0) {
        seen[i] = 1;
        x[i] = f;
      } else if ((isMax ? cur < f : cur > f) || cur !== cur) {
        x[i] = f;
      }
    }
  }

  finish(): { values: Float64Array; present: Uint8Array } {
    return { values: this.x, present: this.seen };
  }
}

/** WelfordAcc: variance per step; a NaN or ±Inf first value poisons the step (Prometheus). */
class WelfordAcc implements GroupAccumulator {
  private readonly cnt: Float64Array;
  private readonly m: Float64Array;
  private readonly v2: Float64Array;
  private readonly seen: Uint8Array;
  private readonly sqrt: boolean;

  constructor(n: number, sqrt: boolean) {
    this.cnt = new Float64Array(n);
    this.m = new Float64Array(n);
    this.v2 = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.sqrt = sqrt;
  }

  add(p: Uint8Array, v: Float64Array): void {
    const { cnt, m, v2, seen } = this;
    for (let i = 0; i < seen.length; i++) {
      if (p[i] === 0) continue;
      const f = v[i]!;
      if (seen[i] === 0) {
        seen[i] = 1;
        cnt[i] = 1;
        m[i] = f;
        v2[i] = Number.isFinite(f) ? 0 : NaN;
        continue;
      }
      const c = ++cnt[i]!;
      const delta = f - m[i]!;
      m[i] = m[i]! + delta / c;
      v2[i] = v2[i]! + delta * (f - m[i]!);
    }
  }

  finish(): { values: Float64Array; present: Uint8Array } {
    const { v2, cnt, sqrt } = this;
    const values = new Float64Array(v2.length);
    for (let i = 0; i < values.length; i++) values[i] = sqrt ? Math.sqrt(v2[i]! / cnt[i]!) : v2[i]! / cnt[i]!;
    return { values, present: this.seen };
  }
}

/** STREAM_AGGREGATES: the aggregations that reduce a group one series at a time. */
export const STREAM_AGGREGATES: Readonly<Record<string, AggregateFunction>> = {
  sum: { kind: 'stream', create: (n) => new SumAcc(n) },
  avg: { kind: 'stream', create: (n) => new AvgAcc(n) },
  count: { kind: 'stream', create: (n) => new CountAcc(n, false) },
  group: { kind: 'stream', create: (n) => new CountAcc(n, true) },
  max: { kind: 'stream', create: (n) => new ExtremeAcc(n, true) },
  min: { kind: 'stream', create: (n) => new ExtremeAcc(n, false) },
  stddev: { kind: 'stream', create: (n) => new WelfordAcc(n, true) },
  stdvar: { kind: 'stream', create: (n) => new WelfordAcc(n, false) },
};

/**
 * collectReduce gathers the present values of each group at each step and reduces them with
 * f(values, step); used where the whole set is needed (quantiles, modes, distinct counts).
 */
export function collectReduce(a: AggregateInput, f: (values: number[], step: number) => number): Series[] {
  const G = a.groupLabels.length;
  const n = a.n;
  const drop = new Uint8Array(G);
  const members: number[][] = Array.from({ length: G }, () => []);
  a.series.forEach((s, k) => {
    members[a.groupOf[k]!]!.push(k);
    if (s.dropName) drop[a.groupOf[k]!] = 1;
  });
  const out: Series[] = [];
  members.forEach((idxs, g) => {
    const values = new Float64Array(n);
    const present = new Uint8Array(n);
    const buf: number[] = [];
    for (let i = 0; i < n; i++) {
      buf.length = 0;
      for (const k of idxs) {
        const s = a.series[k]!;
        if (s.present[i] === 1) buf.push(s.values[i]!);
      }
      if (buf.length === 0) continue;
      values[i] = f(buf, i);
      present[i] = 1;
    }
    if (present.includes(1)) out.push({ labels: a.groupLabels[g]!, values, present, dropName: drop[g] === 1 });
  });
  return out;
}

export const quantileAgg = (a: AggregateInput): Series[] => collectReduce(a, (vals, i) => quantile(a.params[0]?.[i] ?? NaN, vals));
