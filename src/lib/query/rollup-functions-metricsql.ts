// MetricsQL rollup functions with no PromQL equivalent. They see the same window as PromQL
// functions — the samples in (t - d, t] — which differs from VictoriaMetrics where some
// functions also look at the sample just before the window (see FUNCTIONS.md).

import { KahanSum, mean, quantile, variance } from './math.ts';
import type { RollupFunction, RollupWindow } from './rollup-window.ts';

const STATS = ['min', 'max', 'avg'] as const;

function stat(values: number[], which: number): number | undefined {
  if (values.length === 0) return undefined;
  if (which === 0) return Math.min(...values);
  if (which === 1) return Math.max(...values);
  return values.reduce((a, b) => a + b, 0) / values.length;
}

// adjacent maps each pair of neighbouring samples in the window to a number.
function adjacent(w: RollupWindow, f: (dv: number, dtSeconds: number, prev: number, cur: number) => number): number[] {
  const out: number[] = [];
  for (let i = w.lo + 1; i < w.hi; i++) {
    out.push(f(w.vs[i]! - w.vs[i - 1]!, (w.ts[i]! - w.ts[i - 1]!) / 1000, w.vs[i - 1]!, w.vs[i]!));
  }
  return out;
}

// counterDelta is the increase between two counter samples (a drop means a reset).
const counterDelta = (dv: number, prev: number, cur: number): number => (cur < prev ? cur : dv);

function rollupOf(minSamples: number, values: (w: RollupWindow) => number[]): RollupFunction {
  return { minSamples, variants: STATS, variantLabel: 'rollup', compute: (w, v) => stat(values(w), v) };
}

function countIf(pred: (v: number, x: number) => boolean, share: boolean): RollupFunction {
  return {
    minSamples: 1,
    compute: (w) => {
      const x = w.params[0] ?? NaN;
      let n = 0;
      for (let i = w.lo; i < w.hi; i++) if (pred(w.vs[i]!, x)) n++;
      return share ? n / (w.hi - w.lo) : n;
    },
  };
}

function sumIf(pred: (v: number, x: number) => boolean): RollupFunction {
  return {
    minSamples: 1,
    compute: (w) => {
      const x = w.params[0] ?? NaN;
      const k = new KahanSum();
      for (let i = w.lo; i < w.hi; i++) if (pred(w.vs[i]!, x)) k.add(w.vs[i]!);
      return k.value();
    },
  };
}

function extremeTime(better: (a: number, b: number) => boolean): RollupFunction {
  return {
    minSamples: 1,
    compute: (w) => {
      let best = w.lo;
      for (let i = w.lo + 1; i < w.hi; i++) if (better(w.vs[i]!, w.vs[best]!)) best = i;
      return w.ts[best]! / 1000;
    },
  };
}

function sumAdjacent(f: (dv: number) => number): RollupFunction {
  return { minSamples: 1, compute: (w) => adjacent(w, (dv) => f(dv)).reduce((a, b) => a + b, 0) };
}

/** METRICSQL_ROLLUPS: MetricsQL range-vector functions (see FUNCTIONS.md for semantics). */
export const METRICSQL_ROLLUPS: Readonly<Record<string, RollupFunction>> = {
  median_over_time: { minSamples: 1, compute: (w) => quantile(0.5, w.vs.slice(w.lo, w.hi)) },
  mode_over_time: {
    minSamples: 1,
    compute: (w) => {
      const counts = new Map<number, number>();
      let best = w.vs[w.lo]!;
      for (let i = w.lo; i < w.hi; i++) {
        const v = w.vs[i]!;
        const c = (counts.get(v) ?? 0) + 1;
        counts.set(v, c);
        if (c > (counts.get(best) ?? 0) || (c === counts.get(best) && v < best)) best = v;
      }
      return best;
    },
  },
  rollup: rollupOf(1, (w) => Array.from(w.vs.subarray(w.lo, w.hi))),
  rollup_rate: rollupOf(2, (w) => adjacent(w, (dv, dt, p, c) => counterDelta(dv, p, c) / dt)),
  rollup_deriv: rollupOf(2, (w) => adjacent(w, (dv, dt) => dv / dt)),
  rollup_increase: rollupOf(2, (w) => adjacent(w, (dv, _dt, p, c) => counterDelta(dv, p, c))),
  rollup_delta: rollupOf(2, (w) => adjacent(w, (dv) => dv)),
  rollup_scrape_interval: rollupOf(2, (w) => adjacent(w, (_dv, dt) => dt)),
  rollup_candlestick: {
    minSamples: 1,
    variants: ['open', 'close', 'low', 'high'],
    variantLabel: 'rollup',
    compute: (w, v) => {
      const vals = w.vs.subarray(w.lo, w.hi);
      if (v === 0) return vals[0]!;
      if (v === 1) return vals[vals.length - 1]!;
      return v === 2 ? Math.min(...vals) : Math.max(...vals);
    },
  },
  increase_pure: { minSamples: 2, compute: (w) => adjacent(w, (dv, _dt, p, c) => counterDelta(dv, p, c)).reduce((a, b) => a + b, 0) },
  rate_over_sum: {
    minSamples: 1,
    compute: (w) => {
      const k = new KahanSum();
      for (let i = w.lo; i < w.hi; i++) k.add(w.vs[i]!);
      return k.value() / (w.rangeMs / 1000);
    },
  },
  count_eq_over_time: countIf((v, x) => v === x, false),
  count_ne_over_time: countIf((v, x) => v !== x, false),
  count_gt_over_time: countIf((v, x) => v > x, false),
  count_le_over_time: countIf((v, x) => v <= x, false),
  share_eq_over_time: countIf((v, x) => v === x, true),
  share_gt_over_time: countIf((v, x) => v > x, true),
  share_le_over_time: countIf((v, x) => v <= x, true),
  sum_eq_over_time: sumIf((v, x) => v === x),
  sum_gt_over_time: sumIf((v, x) => v > x),
  sum_le_over_time: sumIf((v, x) => v <= x),
  sum2_over_time: {
    minSamples: 1,
    compute: (w) => {
      const k = new KahanSum();
      for (let i = w.lo; i < w.hi; i++) k.add(w.vs[i]! * w.vs[i]!);
      return k.value();
    },
  },
  range_over_time: {
    minSamples: 1,
    compute: (w) => {
      const vals = w.vs.subarray(w.lo, w.hi);
      return Math.max(...vals) - Math.min(...vals);
    },
  },
  distinct_over_time: { minSamples: 1, compute: (w) => new Set(w.vs.subarray(w.lo, w.hi)).size },
  integrate: { minSamples: 1, compute: (w) => adjacent(w, (_dv, dt, p) => p * dt).reduce((a, b) => a + b, 0) },
  lag: { minSamples: 1, compute: (w) => (w.end - w.ts[w.hi - 1]!) / 1000 },
  lifetime: { minSamples: 1, compute: (w) => (w.ts[w.hi - 1]! - w.ts[w.lo]!) / 1000 },
  tfirst_over_time: { minSamples: 1, compute: (w) => w.ts[w.lo]! / 1000 },
  tlast_over_time: { minSamples: 1, compute: (w) => w.ts[w.hi - 1]! / 1000 },
  tmin_over_time: extremeTime((a, b) => a < b),
  tmax_over_time: extremeTime((a, b) => a > b),
  tlast_change_over_time: {
    minSamples: 1,
    compute: (w) => {
      for (let i = w.hi - 1; i > w.lo; i--) if (w.vs[i] !== w.vs[i - 1]) return w.ts[i]! / 1000;
      return undefined;
    },
  },
  geomean_over_time: {
    minSamples: 1,
    compute: (w) => {
      let s = 0;
      for (let i = w.lo; i < w.hi; i++) s += Math.log(w.vs[i]!);
      return Math.exp(s / (w.hi - w.lo));
    },
  },
  ideriv: { minSamples: 2, compute: (w) => (w.vs[w.hi - 1]! - w.vs[w.hi - 2]!) / ((w.ts[w.hi - 1]! - w.ts[w.hi - 2]!) / 1000) },
  increases_over_time: { minSamples: 1, compute: (w) => adjacent(w, (dv) => (dv > 0 ? 1 : 0)).reduce((a, b) => a + b, 0) },
  decreases_over_time: { minSamples: 1, compute: (w) => adjacent(w, (dv) => (dv < 0 ? 1 : 0)).reduce((a, b) => a + b, 0) },
  ascent_over_time: sumAdjacent((dv) => (dv > 0 ? dv : 0)),
  descent_over_time: sumAdjacent((dv) => (dv < 0 ? -dv : 0)),
  zscore_over_time: {
    minSamples: 1,
    compute: (w) => (w.vs[w.hi - 1]! - mean(w.vs, w.lo, w.hi)) / Math.sqrt(variance(w.vs, w.lo, w.hi)),
  },
  scrape_interval: { minSamples: 2, compute: (w) => (w.ts[w.hi - 1]! - w.ts[w.lo]!) / 1000 / (w.hi - w.lo - 1) },
  duration_over_time: {
    minSamples: 1,
    compute: (w) => {
      const maxGap = w.params[0] ?? NaN;
      return adjacent(w, (_dv, dt) => (dt <= maxGap ? dt : 0)).reduce((a, b) => a + b, 0);
    },
  },
  default_rollup: { minSamples: 1, keepName: true, compute: (w) => w.vs[w.hi - 1]! },
};
