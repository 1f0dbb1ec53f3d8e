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
  const raw = await fetchRaw(sel, end - rangeMs + 1, end, st);
  return raw.map(withoutStale).filter((r) => r.timestamps.length > 0);
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
  for (const a of e.args) {
    // timestamp() of a selector reports the picked samples' own timestamps.
    if (e.func === 'timestamp' && a.type === 'VectorSelector') {
      args.push({ type: 'vector', series: await evalVectorSelector(a, grid, st, true) });
    } else {
      args.push(await st.evaluate(a, grid));
    }
  }
  return fn({ args, node: e, grid, st });
}
