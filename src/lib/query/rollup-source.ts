// Where a rollup function's samples come from: a range selector, a subquery, or (MetricsQL)
// an instant selector with an implicit window.

import type { Expr, MatrixSelector, SubqueryExpr, VectorSelector } from '../promql/index.ts';
import { LimitExceededError } from '../storageapi/index.ts';
import { QueryError } from './errors.ts';
import { fetchRaw, streamRaw, withoutStale, type RawBatches } from './fetch.ts';
import type { QueryState } from './query-state.ts';
import { shiftedGrid } from './selector.ts';
import { gridEnd, type Grid, type RawSeries, type Series } from './types.ts';

/**
 * RollupSource: raw series and the windows to evaluate. Window i ends at
 * `windows.start + i*windows.step` and spans `rangeMs` back (left-open). When `fixed`, every
 * step uses the single window of an @ modifier.
 */
export interface RollupSource {
  /** series in batches: one list, or (range selectors) a stream to be read once (fetch.ts RawBatches). */
  readonly series: Iterable<Iterable<RawSeries>> | RawBatches;
  /**
   * stale: the series are stored data that may hold staleness markers, which the reader drops
   * (fetch.ts withoutStale) as it reads each series: a filtering generator in between would cost
   * every series a few promise turns.
   */
  readonly stale: boolean;
  readonly rangeMs: number;
  readonly windows: Grid;
  readonly fixed: boolean;
  /** perSeriesRange: MetricsQL implicit windows, one length per series. */
  readonly perSeriesRange?: Float64Array;
  /** selector: the selector behind the data (absent_over_time labels), null for subqueries. */
  readonly selector: VectorSelector | null;
  /** extended: anchored/smoothed ranges also hold samples one lookback around the range. */
  readonly extended: 'anchored' | 'smoothed' | null;
  readonly lookbackMs: number;
  /**
   * fetch: for a range selector, the selector and the time range its series are searched in
   * (what `series` streams), so that the search can be run where the rollup is evaluated.
   */
  readonly fetch?: { readonly sel: VectorSelector; readonly minT: number; readonly maxT: number };
}

function positiveRange(ms: number, what: string): number {
  if (!(ms > 0)) throw new QueryError(`${what} must be greater than 0, got ${ms}ms`);
  return ms;
}

async function matrixSource(m: MatrixSelector, grid: Grid, st: QueryState): Promise<RollupSource> {
  const sel = m.selector;
  const rangeMs = positiveRange(st.durationMs(m.range), 'range');
  const off = sel.offset === null ? 0 : st.durationMs(sel.offset);
  const windows = shiftedGrid(grid, off, sel.at, st);
  const lb = st.opts.lookbackDeltaMs;
  const before = sel.extended === null ? 0 : lb;
  const after = sel.extended === 'smoothed' ? lb : 0;
  const minT = windows.start - rangeMs - before - st.opts.edgeMs + 1;
  const maxT = gridEnd(windows) + after;
  // streamRaw searches only once iterated: an offloaded rollup (RollupSource.fetch) never does.
  const series = windows.n === 0 ? [] : streamRaw(sel, minT, maxT, st);
  const fetch = windows.n === 0 ? undefined : { sel, minT, maxT };
  return { series, stale: true, rangeMs, windows, fixed: sel.at !== null, selector: sel, extended: sel.extended, lookbackMs: lb, ...(fetch === undefined ? {} : { fetch }) };
}

/** checkSteps enforces -search.maxPointsPerTimeseries on an evaluation grid. */
export function checkSteps(g: Grid, st: QueryState): void {
  const max = st.opts.maxPointsPerTimeseries;
  if (max > 0 && g.n > max) {
    throw new LimitExceededError(
      `the query needs ${g.n} points per series, more than the limit of ${max}; increase step or raise -search.maxPointsPerTimeseries`,
      '-search.maxPointsPerTimeseries', max,
    );
  }
}

/**
 * subqueryGrid: the inner steps of a subquery evaluated for outer windows — multiples of step,
 * from the first one strictly after the earliest window start (at or after it when edgeMs is 1,
 * closed windows) up to the last window end.
 */
export function subqueryGrid(windows: Grid, rangeMs: number, stepMs: number, edgeMs = 0): Grid {
  const from = windows.start - rangeMs - edgeMs;
  let start = Math.floor(from / stepMs) * stepMs;
  if (start <= from) start += stepMs;
  const end = gridEnd(windows);
  if (windows.n === 0 || end < start) return { start, step: stepMs, n: 0 };
  return { start, step: stepMs, n: Math.floor((end - start) / stepMs) + 1 };
}

/** seriesToRaw turns evaluated steps into samples (present steps only). */
export function seriesToRaw(s: Series, g: Grid): RawSeries {
  const present = s.present;
  const values = s.values;
  const n = g.n;
  const start = g.start;
  const step = g.step;
  let count = 0;
  for (let i = 0; i < n; i++) count += present[i]!;
  const ts = new Float64Array(count);
  const vs = new Float64Array(count);
  let j = 0;
  for (let i = 0; i < n; i++) {
    if (present[i] === 0) continue;
    ts[j] = start + i * step;
    vs[j] = values[i]!;
    j++;
  }
  return { labels: s.labels, timestamps: ts, values: vs, dropName: s.dropName };
}

/** evalSubqueryRaw evaluates a subquery's inner expression as samples for windows. */
export async function evalSubqueryRaw(e: SubqueryExpr, windows: Grid, rangeMs: number, st: QueryState): Promise<RawSeries[]> {
  const stepMs = e.step === null ? st.defaultSubqueryStep() : positiveRange(st.durationMs(e.step), 'subquery step');
  const inner = subqueryGrid(windows, rangeMs, stepMs, st.opts.edgeMs);
  checkSteps(inner, st);
  if (inner.n === 0) return [];
  const v = await st.evaluate(e.expr, inner);
  if (v.type !== 'vector') throw new QueryError(`subquery is only allowed on instant vector, got ${v.type}`);
  return v.series.map((s) => seriesToRaw(s, inner)).filter((r) => r.timestamps.length > 0);
}

async function subquerySource(e: SubqueryExpr, grid: Grid, st: QueryState): Promise<RollupSource> {
  const rangeMs = positiveRange(st.durationMs(e.range), 'subquery range');
  const off = e.offset === null ? 0 : st.durationMs(e.offset);
  const windows = shiftedGrid(grid, off, e.at, st);
  const series = await evalSubqueryRaw(e, windows, rangeMs, st);
  return { series: [series], stale: false, rangeMs, windows, fixed: e.at !== null, selector: null, extended: null, lookbackMs: st.opts.lookbackDeltaMs };
}

// implicitSource: MetricsQL `rate(m)`. The window is max(step, 2 × the series' sample interval),
// capped at max(step, lookback), so that it always holds enough samples for a rate.
async function implicitSource(sel: VectorSelector, grid: Grid, st: QueryState): Promise<RollupSource> {
  const step = st.isInstant ? st.opts.instantStepMs : st.queryStep;
  const cap = Math.max(step, st.opts.lookbackDeltaMs);
  const off = sel.offset === null ? 0 : st.durationMs(sel.offset);
  const windows = shiftedGrid(grid, off, sel.at, st);
  const raw = windows.n === 0 ? [] : (await fetchRaw(sel, windows.start - cap + 1, gridEnd(windows), st)).map(withoutStale);
  const perSeriesRange = Float64Array.from(raw, (r) => Math.min(cap, Math.max(step, 2 * medianInterval(r.timestamps))));
  return { series: [raw], stale: false, rangeMs: step, windows, fixed: sel.at !== null, perSeriesRange, selector: sel, extended: null, lookbackMs: st.opts.lookbackDeltaMs };
}

function medianInterval(ts: Float64Array): number {
  if (ts.length < 2) return 0;
  const gaps = new Float64Array(ts.length - 1);
  for (let i = 1; i < ts.length; i++) gaps[i - 1] = ts[i]! - ts[i - 1]!;
  gaps.sort();
  return gaps[gaps.length >> 1]!;
}

/** rollupSource resolves the range argument of a rollup function call. */
export function rollupSource(arg: Expr, grid: Grid, st: QueryState): Promise<RollupSource> {
  switch (arg.type) {
    case 'MatrixSelector': return matrixSource(arg, grid, st);
    case 'SubqueryExpr': return subquerySource(arg, grid, st);
    case 'VectorSelector': return implicitSource(arg, grid, st);
    default: throw new QueryError(`expected a range vector argument, got ${arg.type}`);
  }
}
