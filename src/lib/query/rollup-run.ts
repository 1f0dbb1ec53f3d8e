// One rollup function over one series' samples for every step of a query: the pure core of
// rollup evaluation, shared by the engine (rollup-eval.ts) and by the work unit that evaluates a
// batch of series elsewhere (src/lib/querypool: a worker thread now, a storage node later). It
// depends only on the spec below, never on a QueryState, so both give the same numbers.

import type { RollupFunction, RollupWindow } from './rollup-window.ts';
import type { Grid } from './types.ts';

/**
 * RollupSpec is everything a rollup evaluation needs besides the samples: plain data (it is
 * posted to worker threads as is). Window i ends at `windows.start + i*windows.step` (at
 * `windows.start` for every i when `fixed`, an @ modifier) and spans `rangeMs` back; `grid` gives
 * each step's evaluation time (predict_linear's "now").
 */
export interface RollupSpec {
  /** func names the function in ROLLUP_FUNCTIONS. */
  readonly func: string;
  /** variants: the variant indexes to compute, one output per variant ([0] without variants). */
  readonly variants: readonly number[];
  /** params: the scalar arguments, one value per step each (the range argument excluded). */
  readonly params: readonly Float64Array[];
  readonly strParams: readonly string[];
  readonly rangeMs: number;
  readonly windows: Grid;
  readonly fixed: boolean;
  readonly grid: Grid;
  readonly extended: 'anchored' | 'smoothed' | null;
  readonly lookbackMs: number;
  /** edgeMs: 1 with closed windows (Prometheus 2), else 0. */
  readonly edgeMs: number;
  /** stepMs: the query step (the instant step in instant queries). */
  readonly stepMs: number;
}

/** RollupOut receives one series' steps: `values[i]` counts only where `present[i] === 1`. */
export interface RollupOut {
  readonly values: Float64Array;
  readonly present: Uint8Array;
}

/**
 * runWindows computes fn over every window of one series (ts/vs ascending, staleness markers
 * removed) with window length rangeMs, into out (present is cleared first; values is written
 * only where present). Returns whether any step has a value.
 */
export function runWindows(fn: RollupFunction, ts: Float64Array, vs: Float64Array, spec: RollupSpec, rangeMs: number, variant: number, out: RollupOut): boolean {
  const n = spec.grid.n;
  const values = out.values;
  const present = out.present.fill(0);
  const len = ts.length;
  const params = spec.params;
  const nParams = params.length;
  const ext = spec.extended === null ? undefined : fn.extended;
  if (fn.sweep !== undefined && ext === undefined && nParams === 0 && fn.variants === undefined) {
    const sweep = { ts, vs, end0: spec.windows.start, step: spec.fixed ? 0 : spec.windows.step, n, rangeMs, edgeMs: spec.edgeMs, values, present };
    return fn.sweep(sweep);
  }
  const w: RollupWindow = {
    ts, vs, lo: 0, hi: 0, start: 0, end: 0, rangeMs, evalTime: 0,
    params: new Array<number>(nParams).fill(NaN), strParams: spec.strParams as string[], stepMs: spec.stepMs,
    scratch: null,
  };
  const smoothed = spec.extended === 'smoothed';
  const compute = ext === undefined ? fn.compute : (win: RollupWindow) => ext.compute(win, smoothed);
  const minSamples = ext === undefined ? fn.minSamples : 1;
  // Anchored and smoothed windows reach one lookback before the range (and after, smoothed).
  // Closed windows (Prometheus 2) also take the sample on the left edge: edgeMs is then 1.
  const before = (ext === undefined ? 0 : spec.lookbackMs) + spec.edgeMs;
  const after = smoothed ? spec.lookbackMs : 0;
  const wStart = spec.windows.start;
  const wStep = spec.fixed ? 0 : spec.windows.step;
  const gStart = spec.grid.start;
  const gStep = spec.grid.step;
  let lo = 0;
  let hi = 0;
  let any = false;
  for (let i = 0; i < n; i++) {
    const end = wStart + i * wStep;
    const start = end - rangeMs;
    while (hi < len && ts[hi]! <= end + after) hi++;
    while (lo < hi && ts[lo]! <= start - before) lo++;
    if (hi - lo < minSamples) continue;
    w.lo = lo;
    w.hi = hi;
    w.start = start;
    w.end = end;
    w.evalTime = gStart + i * gStep;
    for (let p = 0; p < nParams; p++) w.params[p] = params[p]![i]!;
    const v = compute(w, variant);
    if (v === undefined) continue;
    values[i] = v;
    present[i] = 1;
    any = true;
  }
  return any;
}
