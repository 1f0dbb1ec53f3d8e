// The rollup engine: slides each function's window over a series' samples for all steps at
// once (two pointers over sorted timestamps), so a range query costs one pass per series.

import type { FunctionCall, VectorSelector } from '../promql/index.ts';
import { FUNCTIONS } from '../promql/index.ts';
import { QueryError } from './errors.ts';
import { fromRecord, setLabel } from './labels.ts';
import type { QueryState } from './query-state.ts';
import { withoutStale } from './fetch.ts';
import { ROLLUP_FUNCTIONS } from './rollup-functions.ts';
import { rollupSource, type RollupSource } from './rollup-source.ts';
import type { RollupFunction, RollupWindow } from './rollup-window.ts';
import type { Grid, RawSeries, Series, Value } from './types.ts';

/**
 * evalRollupCall evaluates a call of a function over a range vector. With a sink, each output
 * series is handed over as computed, in buffers reused for the next one (the sink must copy
 * what it keeps), and the returned vector is empty.
 */
export async function evalRollupCall(call: FunctionCall, grid: Grid, st: QueryState, sink?: (s: Series) => void): Promise<Value> {
  const fn = ROLLUP_FUNCTIONS.get(call.func);
  const sig = FUNCTIONS.get(call.func);
  if (fn === undefined || sig === undefined) throw new QueryError(`unknown rollup function "${call.func}"`);
  const rangeIdx = sig.args.indexOf('range');
  const params: Float64Array[] = [];
  const strParams: string[] = [];
  for (let i = 0; i < call.args.length; i++) {
    if (i === rangeIdx) continue;
    const v = await st.evaluate(call.args[i]!, grid);
    if (v.type === 'scalar') params.push(v.values);
    else if (v.type === 'string') strParams.push(v.value);
    else throw new QueryError(`argument ${i + 1} of ${call.func}() must be a scalar or a string, got ${v.type}`);
  }
  const src = await rollupSource(call.args[rangeIdx]!, grid, st);
  if (call.func === 'absent_over_time') {
    const v = await absentOverTime(src, grid, st);
    if (sink !== undefined && v.type === 'vector') v.series.forEach(sink);
    return sink === undefined ? v : { type: 'vector', series: [] };
  }
  if (src.extended !== null && !(fn.extended?.[src.extended] ?? false)) {
    const allowed = [...ROLLUP_FUNCTIONS].filter(([, f]) => f.extended?.[src.extended!]).map(([n]) => n).sort();
    throw new QueryError(`${src.extended} modifier can only be used with: ${allowed.join(', ')} - not with ${call.func}`);
  }
  const variants = pickVariants(fn, strParams, call.func);
  const out: Series[] = [];
  const reuse = sink === undefined ? undefined : { values: new Float64Array(grid.n), present: new Uint8Array(grid.n) };
  let k = 0;
  for await (const stored of src.series) {
    const r = src.stale ? withoutStale(stored) : stored;
    const turn = st.yieldAfter(grid.n + r.timestamps.length);
    if (turn !== undefined) await turn;
    const rangeMs = src.perSeriesRange?.[k] ?? src.rangeMs;
    k++;
    for (const variant of variants) {
      const s = runWindows(fn, r, src, rangeMs, grid, params, strParams, variant, st, reuse);
      if (s === null) continue;
      const name = fn.variants?.[variant];
      const labels = name === undefined ? r.labels : setLabel(r.labels, fn.variantLabel ?? 'rollup', name);
      const dropName = r.dropName || (!fn.keepName && !call.keepMetricNames);
      const series = { labels, values: s.values, present: s.present, dropName };
      if (sink !== undefined) sink(series);
      else out.push(series);
    }
  }
  return { type: 'vector', series: out };
}

function pickVariants(fn: RollupFunction, strParams: string[], func: string): number[] {
  if (fn.variants === undefined) return [0];
  const want = strParams[0];
  if (want === undefined) return fn.variants.map((_, i) => i);
  const i = fn.variants.indexOf(want);
  if (i < 0) throw new QueryError(`unknown ${func}() variant "${want}"; want one of ${fn.variants.join(', ')}`);
  return [i];
}

function runWindows(
  fn: RollupFunction, r: RawSeries, src: RollupSource, rangeMs: number, grid: Grid,
  params: Float64Array[], strParams: string[], variant: number, st: QueryState,
  reuse?: { values: Float64Array; present: Uint8Array },
): { values: Float64Array; present: Uint8Array } | null {
  const n = grid.n;
  const values = reuse?.values ?? new Float64Array(n);
  const present = reuse?.present.fill(0) ?? new Uint8Array(n);
  const ts = r.timestamps;
  const len = ts.length;
  const nParams = params.length;
  const ext = src.extended === null ? undefined : fn.extended;
  if (fn.sweep !== undefined && ext === undefined && nParams === 0 && fn.variants === undefined) {
    const sweep = { ts, vs: r.values, end0: src.windows.start, step: src.fixed ? 0 : src.windows.step, n, rangeMs, edgeMs: st.opts.edgeMs, values, present };
    return fn.sweep(sweep) ? { values, present } : null;
  }
  const w: RollupWindow = {
    ts, vs: r.values, lo: 0, hi: 0, start: 0, end: 0, rangeMs, evalTime: 0,
    params: new Array<number>(nParams).fill(NaN), strParams, stepMs: st.isInstant ? st.opts.instantStepMs : st.queryStep,
    scratch: null,
  };
  const smoothed = src.extended === 'smoothed';
  const compute = ext === undefined ? fn.compute : (win: RollupWindow) => ext.compute(win, smoothed);
  const minSamples = ext === undefined ? fn.minSamples : 1;
  // Anchored and smoothed windows reach one lookback before the range (and after, smoothed).
  // Closed windows (Prometheus 2) also take the sample on the left edge: edgeMs is then 1.
  const before = (ext === undefined ? 0 : src.lookbackMs) + st.opts.edgeMs;
  const after = smoothed ? src.lookbackMs : 0;
  const wStart = src.windows.start;
  const wStep = src.fixed ? 0 : src.windows.step;
  const gStart = grid.start;
  const gStep = grid.step;
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
  return any ? { values, present } : null;
}

// absentOverTime: 1 at the steps where no series had a sample in its window.
async function absentOverTime(src: RollupSource, grid: Grid, st: QueryState): Promise<Value> {
  const covered = new Uint8Array(grid.n);
  for await (const stored of src.series) {
    const r = src.stale ? withoutStale(stored) : stored;
    let lo = 0;
    let hi = 0;
    const ts = r.timestamps;
    for (let i = 0; i < grid.n; i++) {
      const end = src.fixed ? src.windows.start : src.windows.start + i * src.windows.step;
      while (hi < ts.length && ts[hi]! <= end) hi++;
      while (lo < hi && ts[lo]! <= end - src.rangeMs - st.opts.edgeMs) lo++;
      if (hi > lo) covered[i] = 1;
    }
  }
  st.signal.throwIfAborted();
  const present = covered.map((c) => 1 - c);
  if (!present.includes(1)) return { type: 'vector', series: [] };
  const labels = src.selector === null ? [] : absentLabels(src.selector);
  return { type: 'vector', series: [{ labels, values: new Float64Array(grid.n).fill(1), present, dropName: true }] };
}

/**
 * absentLabels: the labels absent() reports — those fixed by exactly one equality matcher
 * (a label matched twice, or by another operator, is left out, as in Prometheus).
 */
export function absentLabels(sel: VectorSelector): ReturnType<typeof fromRecord> {
  if (sel.matcherSets.length !== 1) return [];
  const rec: Record<string, string> = {};
  const seen = new Set<string>();
  for (const m of sel.matcherSets[0]!) {
    if (m.name === '__name__') continue;
    if (m.op === '=' && !seen.has(m.name)) {
      rec[m.name] = m.value;
      seen.add(m.name);
    } else {
      delete rec[m.name];
    }
  }
  return fromRecord(rec);
}
