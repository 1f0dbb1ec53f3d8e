// The rollup engine: slides each function's window over a series' samples for all steps at
// once (two pointers over sorted timestamps), so a range query costs one pass per series.

import type { FunctionCall, VectorSelector } from '../promql/index.ts';
import { FUNCTIONS } from '../promql/index.ts';
import { QueryError } from './errors.ts';
import { fromRecord, setLabel } from './labels.ts';
import type { QueryState } from './query-state.ts';
import { ROLLUP_FUNCTIONS } from './rollup-functions.ts';
import { countFetched, offloadSearch, withoutStale } from './fetch.ts';
import type { RollupBatch } from './rollup-offload.ts';
import { runWindows, type RollupSpec } from './rollup-run.ts';
import { rollupSource, type RollupSource } from './rollup-source.ts';
import type { RollupFunction } from './rollup-window.ts';
import type { Grid, Series, Value } from './types.ts';
import type { Labels } from '../storageapi/index.ts';

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
  const spec: RollupSpec = {
    func: call.func, variants, params, strParams, rangeMs: src.rangeMs, windows: src.windows, fixed: src.fixed, grid,
    extended: src.extended, lookbackMs: src.lookbackMs, edgeMs: st.opts.edgeMs, stepMs: st.isInstant ? st.opts.instantStepMs : st.queryStep,
  };
  const dropName = !fn.keepName && !call.keepMetricNames;
  const out: Series[] = [];
  const emit = sink ?? ((s: Series) => out.push(s));
  const offload = st.opts.rollupOffload;
  const search = offload === undefined || src.fetch === undefined || offload.accepts?.(spec) === false ? undefined : offloadSearch(src.fetch.sel, src.fetch.minT, src.fetch.maxT, st);
  if (offload !== undefined && search !== undefined) {
    // A batch's arrays are reused after it (RollupBatch): keep copies (a sink copies by contract).
    const keep = sink ?? ((s: Series) => out.push({ ...s, values: s.values.slice(), present: s.present.slice() }));
    for await (const b of offload.rollup(st.searcher, search, spec, st.signal)) emitBatch(b, fn, spec, dropName, st, keep);
    return { type: 'vector', series: out };
  }
  const reuse = sink === undefined ? undefined : { values: new Float64Array(grid.n), present: new Uint8Array(grid.n) };
  let k = 0;
  for await (const batch of src.series) {
    for (const stored of batch) {
      const r = src.stale ? withoutStale(stored) : stored;
      const turn = st.yieldAfter(grid.n + r.timestamps.length);
      if (turn !== undefined) await turn;
      const rangeMs = src.perSeriesRange?.[k] ?? src.rangeMs;
      k++;
      for (const variant of variants) {
        const s = reuse ?? { values: new Float64Array(grid.n), present: new Uint8Array(grid.n) };
        if (!runWindows(fn, r.timestamps, r.values, spec, rangeMs, variant, s)) continue;
        emit({ labels: variantLabels(fn, r.labels, variant), values: s.values, present: s.present, dropName: r.dropName || dropName });
      }
    }
  }
  return { type: 'vector', series: out };
}

function variantLabels(fn: RollupFunction, labels: Labels, variant: number): Labels {
  const name = fn.variants?.[variant];
  return name === undefined ? labels : setLabel(labels, fn.variantLabel ?? 'rollup', name);
}

// emitBatch hands on the series of an offloaded batch as the loop above would have: it counts
// what each series fetched (and enforces the samples limit) at the same point of the series order.
function emitBatch(b: RollupBatch, fn: RollupFunction, spec: RollupSpec, dropName: boolean, st: QueryState, emit: (s: Series) => void): void {
  const n = spec.grid.n;
  const nv = spec.variants.length;
  for (let i = 0; i < b.labels.length; i++) {
    if (b.samples[i] === 0) continue;
    countFetched(b.samples[i]!, st);
    for (let v = 0; v < nv; v++) {
      const at = i * nv + v;
      if (b.any[at] !== 1) continue;
      const values = b.values.subarray(at * n, (at + 1) * n);
      const present = b.present.subarray(at * n, (at + 1) * n);
      emit({ labels: variantLabels(fn, b.labels[i]!, spec.variants[v]!), values, present, dropName });
    }
  }
}

function pickVariants(fn: RollupFunction, strParams: string[], func: string): number[] {
  if (fn.variants === undefined) return [0];
  const want = strParams[0];
  if (want === undefined) return fn.variants.map((_, i) => i);
  const i = fn.variants.indexOf(want);
  if (i < 0) throw new QueryError(`unknown ${func}() variant "${want}"; want one of ${fn.variants.join(', ')}`);
  return [i];
}

// absentOverTime: 1 at the steps where no series had a sample in its window.
async function absentOverTime(src: RollupSource, grid: Grid, st: QueryState): Promise<Value> {
  const covered = new Uint8Array(grid.n);
  for await (const batch of src.series) {
    for (const stored of batch) {
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
