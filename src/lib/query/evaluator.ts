// evaluate: the dispatcher over AST node types. Every node is evaluated for a whole grid of
// steps at once and returns per-step arrays (see types.ts).

import type { Expr, FunctionCall, MatrixSelector, SubqueryExpr, UnaryExpr } from '../promql/index.ts';
import { FUNCTIONS } from '../promql/index.ts';
import { evalAggregate } from './aggregate.ts';
import { evalBinary } from './binary.ts';
import { QueryError } from './errors.ts';
import { fetchRaw, withoutStale } from './fetch.ts';
import type { QueryState } from './query-state.ts';
import { evalRollupCall } from './rollup-eval.ts';
import { interpolate } from './rollup-functions-prometheus.ts';
import { evalSubqueryRaw } from './rollup-source.ts';
import { evalVectorSelector, shiftedGrid } from './selector.ts';
import { TRANSFORM_FUNCTIONS } from './transform-functions.ts';
import { constantScalar, type Grid, type RawSeries, type Value } from './types.ts';

/** evaluate computes e over every step of grid. */
export async function evaluate(e: Expr, grid: Grid, st: QueryState): Promise<Value> {
  st.signal.throwIfAborted();
  switch (e.type) {
    case 'NumberLiteral': return constantScalar(e.value, grid.n);
    case 'StringLiteral': return { type: 'string', value: e.value };
    case 'VectorSelector': return { type: 'vector', series: await evalVectorSelector(e, grid, st) };
    case 'MatrixSelector': return { type: 'matrix', series: await matrixAt(e, grid, st) };
    case 'SubqueryExpr': return { type: 'matrix', series: await subqueryAt(e, grid, st) };
    case 'UnaryExpr': return evalUnary(e, grid, st);
    case 'BinaryExpr': return evalBinary(e, grid, st);
    case 'AggregateExpr': return evalAggregate(e, grid, st);
    case 'FunctionCall': return evalCall(e, grid, st);
  }
}

function instantOnly(grid: Grid, what: string): number {
  if (grid.n !== 1) throw new QueryError(`a ${what} can only be evaluated at a single time (an instant query or a function argument)`, 'bad_data');
  return grid.start;
}

// matrixAt: a bare range selector in an instant query returns the raw samples of its window.
async function matrixAt(e: MatrixSelector, grid: Grid, st: QueryState): Promise<RawSeries[]> {
  instantOnly(grid, 'range vector selector');
  const sel = e.selector;
  const rangeMs = st.durationMs(e.range);
  const off = sel.offset === null ? 0 : st.durationMs(sel.offset);
  const end = shiftedGrid(grid, off, sel.at, st).start;
  if (sel.extended !== null) {
    const lb = st.opts.lookbackDeltaMs;
    const raw = await fetchRaw(sel, end - rangeMs - lb + 1, end + (sel.extended === 'smoothed' ? lb : 0), st);
    return raw.map((r) => extendRange(withoutStale(r), end - rangeMs, end, sel.extended === 'smoothed')).filter((r) => r.timestamps.length > 0);
  }
  const raw = await fetchRaw(sel, end - rangeMs - st.opts.edgeMs + 1, end, st);
  return raw.map(withoutStale).filter((r) => r.timestamps.length > 0);
}

/**
 * extendRange: an anchored (smoothed) range as samples — the value at the range start from the
 * sample at or before it (interpolated), the samples inside, the value at the range end.
 */
function extendRange(r: RawSeries, start: number, end: number, smoothed: boolean): RawSeries {
  const ts = r.timestamps;
  const vs = r.values;
  const empty = { ...r, timestamps: new Float64Array(0), values: new Float64Array(0) };
  if (ts.length === 0) return empty;
  let first = 0;
  while (first < ts.length - 1 && !(ts[first]! > start)) first++;
  first = Math.max(0, first - 1);
  let last = ts.length - 1;
  if (smoothed) {
    let k = 0;
    while (k < last && !(ts[k]! >= end)) k++;
    last = k;
  }
  if (ts[last]! <= start) return empty;
  const left = smoothed && ts[first]! < start ? interpolate(ts[first]!, vs[first]!, ts[first + 1]!, vs[first + 1]!, start, false) : vs[first]!;
  const right = smoothed && last > 0 && ts[last]! > end ? interpolate(ts[last - 1]!, vs[last - 1]!, ts[last]!, vs[last]!, end, false) : vs[last]!;
  if (ts[first]! <= start) first++;
  if (ts[last]! >= end) last--;
  const inner = Math.max(0, last - first + 1);
  const outTs = new Float64Array(inner + 2);
  const outVs = new Float64Array(inner + 2);
  outTs[0] = start;
  outVs[0] = left;
  outTs.set(ts.subarray(first, first + inner), 1);
  outVs.set(vs.subarray(first, first + inner), 1);
  outTs[inner + 1] = end;
  outVs[inner + 1] = right;
  return { ...r, timestamps: outTs, values: outVs };
}

// subqueryAt: a bare subquery in an instant query returns its inner evaluation points.
async function subqueryAt(e: SubqueryExpr, grid: Grid, st: QueryState): Promise<RawSeries[]> {
  instantOnly(grid, 'subquery');
  const off = e.offset === null ? 0 : st.durationMs(e.offset);
  return evalSubqueryRaw(e, shiftedGrid(grid, off, e.at, st), st.durationMs(e.range), st);
}

async function evalUnary(e: UnaryExpr, grid: Grid, st: QueryState): Promise<Value> {
  const v = await st.evaluate(e.expr, grid);
  if (e.op === '+') return v;
  if (v.type === 'scalar') return { type: 'scalar', values: v.values.map((x) => -x) };
  if (v.type === 'vector') return { type: 'vector', series: v.series.map((s) => ({ ...s, values: s.values.map((x) => -x), dropName: true })) };
  throw new QueryError(`unary minus is not defined on ${v.type}`);
}

async function evalCall(e: FunctionCall, grid: Grid, st: QueryState): Promise<Value> {
  const sig = FUNCTIONS.get(e.func);
  if (sig === undefined) throw new QueryError(`unknown function "${e.func}"`);
  if (sig.args.includes('range')) return evalRollupCall(e, grid, st);
  const fn = TRANSFORM_FUNCTIONS.get(e.func);
  if (fn === undefined) throw new QueryError(`function "${e.func}" has no implementation`);
  const args: Value[] = [];
  // info()'s second argument is a label selector read from the AST, not a series selector.
  for (const a of e.func === 'info' ? e.args.slice(0, 1) : e.args) {
    // timestamp() of a selector reports the picked samples' own timestamps.
    if (e.func === 'timestamp' && a.type === 'VectorSelector') {
      args.push({ type: 'vector', series: await evalVectorSelector(a, grid, st, true) });
    } else {
      args.push(await st.evaluate(a, grid));
    }
  }
  return await fn({ args, node: e, grid, st });
}
