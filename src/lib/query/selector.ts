// Instant vector selectors: the value of each series at each step is its latest sample in
// (t - lookback, t] (Prometheus 3: left-open; [t - lookback, t] with closedWindows), unless that sample is a staleness marker.

import type { AtModifier, VectorSelector } from '../promql/index.ts';
import { isStaleNaN } from '../storageapi/index.ts';
import { fetchRaw, streamRaw, withoutStale } from './fetch.ts';
import { interpolate } from './rollup-functions-prometheus.ts';
import type { QueryState } from './query-state.ts';
import { gridEnd, type Grid, type RawSeries, type Series } from './types.ts';

/** atMs resolves an @ modifier to milliseconds. */
export function atMs(at: AtModifier, st: QueryState): number {
  switch (at.type) {
    case 'AtStart': return st.queryStart;
    case 'AtEnd': return st.queryEnd;
    case 'AtTime': return Math.round(at.seconds * 1000);
  }
}

/**
 * shiftedGrid returns the storage-time grid a node with offset/@ reads: the query grid moved
 * back by the offset, or a single step at the @ time (the caller broadcasts it).
 */
export function shiftedGrid(grid: Grid, offsetMs: number, at: AtModifier | null, st: QueryState): Grid {
  if (at !== null) return { start: atMs(at, st) - offsetMs, step: grid.step, n: grid.n === 0 ? 0 : 1 };
  return { start: grid.start - offsetMs, step: grid.step, n: grid.n };
}

/** broadcast repeats a one-step series over n steps (for @-fixed evaluation). */
export function broadcast(s: Series, n: number): Series {
  if (s.values.length === n) return s;
  const values = new Float64Array(n).fill(s.values[0] ?? 0);
  const present = new Uint8Array(n).fill(s.present[0] ?? 0);
  const out: Series = { labels: s.labels, values, present, dropName: s.dropName };
  if (s.timestamps !== undefined) return { ...out, timestamps: new Float64Array(n).fill(s.timestamps[0] ?? 0) };
  return out;
}

/**
 * evalVectorSelector evaluates an instant selector over the grid. With a sink, each series is
 * handed over as it is computed, in buffers reused for the next series (the sink must copy
 * what it keeps), and the result is empty.
 */
export async function evalVectorSelector(sel: VectorSelector, grid: Grid, st: QueryState, wantTimestamps = false, sink?: (s: Series) => void): Promise<Series[]> {
  const off = sel.offset === null ? 0 : st.durationMs(sel.offset);
  const g = shiftedGrid(grid, off, sel.at, st);
  if (g.n === 0) return [];
  const lb = st.opts.lookbackDeltaMs;
  const smoothed = sel.extended === 'smoothed';
  // With closed windows the lookback also takes a sample exactly lookback before t.
  const selectLb = lb + st.opts.edgeMs;
  const minT = g.start - selectLb + 1;
  const maxT = gridEnd(g) + (smoothed ? lb : 0);
  // A selector written once in the query is read series by series: only its values on the grid
  // stay, not every raw sample of every series at once (24 h of 1-minute samples are 11 times
  // the grid of a 5-minute step).
  const raw = st.mayRefetch(sel) ? [await fetchRaw(sel, minT, maxT, st)] : streamRaw(sel, minT, maxT, st);
  const out: Series[] = [];
  const reuse = sink !== undefined && g.n === grid.n ? { values: new Float64Array(g.n), present: new Uint8Array(g.n) } : undefined;
  for await (const batch of raw) {
    for (const r of batch) {
      const turn = st.yieldAfter(g.n + r.timestamps.length);
      if (turn !== undefined) await turn;
      const s = smoothed ? smooth(withoutStale(r), g, lb) : lookback(r, g, selectLb, wantTimestamps, reuse);
      if (s === null) continue;
      if (sink !== undefined) sink(broadcast(s, grid.n));
      else out.push(broadcast(s, grid.n));
    }
  }
  return out;
}

/**
 * smooth samples a series for Prometheus 3's `smoothed` modifier: the sample at t, else the
 * interpolation between the samples around t, else the last one before t, all within one
 * lookback on either side.
 */
export function smooth(r: RawSeries, g: Grid, lookbackMs: number): Series | null {
  const ts = r.timestamps;
  const vs = r.values;
  const values = new Float64Array(g.n);
  const present = new Uint8Array(g.n);
  let lo = 0;
  let hi = 0;
  let any = false;
  for (let i = 0; i < g.n; i++) {
    const t = g.start + i * g.step;
    while (hi < ts.length && ts[hi]! <= t + lookbackMs) hi++;
    while (lo < hi && ts[lo]! <= t - lookbackMs) lo++;
    let k = lo;
    while (k < hi && ts[k]! < t) k++;
    if (k < hi && ts[k] === t) values[i] = vs[k]!;
    else if (k > lo && k < hi) values[i] = interpolate(ts[k - 1]!, vs[k - 1]!, ts[k]!, vs[k]!, t, false);
    else if (k > lo) values[i] = vs[k - 1]!;
    else continue;
    present[i] = 1;
    any = true;
  }
  return any ? { labels: r.labels, values, present, dropName: r.dropName } : null;
}

/** lookback samples one raw series on a grid (into `reuse` when given); null when no step has a value. */
export function lookback(r: RawSeries, g: Grid, lookbackMs: number, wantTimestamps: boolean, reuse?: { values: Float64Array; present: Uint8Array }): Series | null {
  // Locals instead of property loads in the hot loop: this loop runs once per point.
  const ts = r.timestamps;
  const vs = r.values;
  const len = ts.length;
  const n = g.n;
  const start = g.start;
  const step = g.step;
  const values = reuse?.values ?? new Float64Array(n);
  const present = reuse?.present.fill(0) ?? new Uint8Array(n);
  const times = wantTimestamps ? new Float64Array(n) : undefined;
  let any = false;
  let j = -1;
  for (let i = 0; i < n; i++) {
    const t = start + i * step;
    while (j + 1 < len && ts[j + 1]! <= t) j++;
    if (j < 0 || ts[j]! <= t - lookbackMs) continue;
    const v = vs[j]!;
    if (v !== v && isStaleNaN(v)) continue;
    values[i] = v;
    present[i] = 1;
    if (times !== undefined) times[i] = ts[j]!;
    any = true;
  }
  if (!any) return null;
  const s: Series = { labels: r.labels, values, present, dropName: r.dropName };
  return times === undefined ? s : { ...s, timestamps: times };
}
