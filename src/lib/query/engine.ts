// Query entry points: instant and range queries over a Searcher, returning Prometheus result
// types with statistics. Pure: storage, options and the clock come in as arguments.

import { parse, typeOf, type Expr } from '../promql/index.ts';
import type { Labels, Searcher } from '../storageapi/index.ts';
import { QueryError } from './errors.ts';
import { evaluate } from './evaluator.ts';
import { compareLabels, dropMetricName } from './labels.ts';
import { QueryState, resolveOptions, type QueryOptions, type QueryStats } from './query-state.ts';
import { checkSteps, seriesToRaw } from './rollup-source.ts';
import { mergeSameLabels } from './transform-call.ts';
import { hasAnyPoint, makeGrid, type Grid, type Series, type Value } from './types.ts';

/** SampleResult is one point of an instant vector: labels, time (ms) and value. */
export interface SampleResult {
  readonly labels: Labels;
  readonly timestamp: number;
  readonly value: number;
}

/** SeriesResult is one series of a matrix: ascending timestamps (ms) and their values. */
export interface SeriesResult {
  readonly labels: Labels;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
}

/** QueryResult mirrors Prometheus' result types (a bare range selector at an instant is a matrix). */
export type QueryResult =
  | { readonly type: 'vector'; readonly vector: SampleResult[]; readonly stats: QueryStats }
  | { readonly type: 'scalar'; readonly timestamp: number; readonly value: number; readonly stats: QueryStats }
  | { readonly type: 'string'; readonly timestamp: number; readonly value: string; readonly stats: QueryStats }
  | { readonly type: 'matrix'; readonly matrix: SeriesResult[]; readonly stats: QueryStats };

/** RangeOptions: evalRange restricts evaluation to a step-aligned sub-range (for result caches). */
export interface RangeOptions extends QueryOptions {
  readonly evalRange?: { readonly start: number; readonly end: number };
}

function toExpr(query: string | Expr): Expr {
  return typeof query === 'string' ? parse(query) : query;
}

function newState(searcher: Searcher, opts: QueryOptions, expr: Expr, start: number, end: number, step: number, instant: boolean): QueryState {
  const st = new QueryState(searcher, resolveOptions(opts), opts.signal ?? new AbortController().signal, start, end, step, instant, opts.now);
  st.countSelectors(expr);
  st.evaluate = (e, grid) => evaluate(e, grid, st);
  return st;
}

/**
 * finishSeries applies delayed name removal, merges series that became identical (an error
 * if they overlap) and drops series without points.
 */
export function finishSeries(series: readonly Series[]): Series[] {
  // Indexed loops, no callbacks: this runs once per query over every series of its answer, mostly
  // before V8 optimizes it (see labelsKey).
  const named: Series[] = [];
  for (let k = 0; k < series.length; k++) {
    const s = series[k]!;
    named.push(s.dropName ? { ...s, labels: dropMetricName(s.labels), dropName: false } : s);
  }
  const merged = mergeSameLabels(named);
  const out: Series[] = [];
  for (let k = 0; k < merged.length; k++) if (hasAnyPoint(merged[k]!)) out.push(merged[k]!);
  return out;
}

/** instant evaluates a query at one time (ms). Throws ParseError, QueryError or LimitExceededError. */
export async function instant(searcher: Searcher, query: string | Expr, timeMs: number, opts: QueryOptions): Promise<QueryResult> {
  const expr = toExpr(query);
  const st = newState(searcher, opts, expr, timeMs, timeMs, 0, true);
  const v = await st.evaluate(expr, { start: timeMs, step: 1, n: 1 });
  return instantResult(v, timeMs, st.stats);
}

function instantResult(v: Value, t: number, stats: QueryStats): QueryResult {
  switch (v.type) {
    case 'scalar': return { type: 'scalar', timestamp: t, value: v.values[0]!, stats };
    case 'string': return { type: 'string', timestamp: t, value: v.value, stats };
    case 'matrix': {
      const named = v.series.map((s) => ({ labels: s.dropName ? dropMetricName(s.labels) : s.labels, timestamps: s.timestamps, values: s.values }));
      return { type: 'matrix', matrix: named.sort((a, b) => compareLabels(a.labels, b.labels)), stats };
    }
    case 'vector':
      return { type: 'vector', vector: finishSeries(v.series).map((s) => ({ labels: s.labels, timestamp: t, value: s.values[0]! })), stats };
  }
}

/** range evaluates a query at start, start+step, …, ≤ end (ms). The result is always a matrix. */
export async function range(searcher: Searcher, query: string | Expr, startMs: number, endMs: number, stepMs: number, opts: RangeOptions): Promise<QueryResult> {
  if (!(stepMs > 0)) throw new QueryError(`step must be positive, got ${stepMs}ms`, 'bad_data');
  if (endMs < startMs) throw new QueryError('end timestamp must not be before start time', 'bad_data');
  const expr = toExpr(query);
  const t = typeOf(expr);
  if (t !== 'vector' && t !== 'scalar') {
    throw new QueryError(`invalid expression type "${t === 'matrix' ? 'range vector' : t}" for range query, must be Scalar or instant Vector`, 'bad_data');
  }
  const st = newState(searcher, opts, expr, startMs, endMs, stepMs, false);
  const grid = evalGrid(startMs, endMs, stepMs, opts.evalRange);
  checkSteps(grid, st);
  const v = await st.evaluate(expr, grid);
  const series: Series[] = v.type === 'scalar'
    ? [{ labels: [], values: v.values, present: new Uint8Array(grid.n).fill(1), dropName: false }]
    : v.type === 'vector' ? finishSeries(v.series) : [];
  const matrix = series.map((s) => toSeriesResult(s, grid)).sort((a, b) => compareLabels(a.labels, b.labels));
  return { type: 'matrix', matrix, stats: st.stats };
}

function evalGrid(start: number, end: number, step: number, sub: RangeOptions['evalRange']): Grid {
  if (sub === undefined) return makeGrid(start, end, step);
  if ((sub.start - start) % step !== 0) throw new QueryError('evalRange.start must be aligned to the query step', 'bad_data');
  return makeGrid(Math.max(sub.start, start), Math.min(sub.end, end), step);
}

function toSeriesResult(s: Series, g: Grid): SeriesResult {
  const raw = seriesToRaw(s, g);
  return { labels: raw.labels, timestamps: raw.timestamps, values: raw.values };
}
