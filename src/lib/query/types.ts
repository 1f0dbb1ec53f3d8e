// Values the evaluator passes between nodes. A query is evaluated over a grid of steps
// (start, start+step, …, ≤ end); an instant query is a grid of one step. Every per-step array
// has one slot per step.

import type { Labels } from '../storageapi/index.ts';

/**
 * Series is an instant vector evaluated over the whole grid: `values[i]` is meaningful only
 * where `present[i] === 1` (a NaN value is a real NaN; absence is only `present[i] === 0`).
 * `dropName` marks series whose metric name is removed at the end of evaluation (Prometheus 3
 * delayed name removal: functions set the flag instead of deleting `__name__`, so that
 * label_replace/label_join can still read or keep it).
 */
export interface Series {
  readonly labels: Labels;
  readonly values: Float64Array;
  readonly present: Uint8Array;
  readonly dropName: boolean;
  /** timestamps (ms) of the samples an instant selector picked; only set when asked for. */
  readonly timestamps?: Float64Array;
}

/** RawSeries is stored data in a time window: ascending timestamps (ms) and their values. */
export interface RawSeries {
  readonly labels: Labels;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly dropName: boolean;
  /** noNaN: true when no value is NaN, known without looking (SeriesSamples.noNaN); absent or false: unknown. */
  readonly noNaN?: boolean;
}

export type Value =
  | { readonly type: 'scalar'; readonly values: Float64Array }
  | { readonly type: 'vector'; readonly series: Series[] }
  | { readonly type: 'matrix'; readonly series: RawSeries[] }
  | { readonly type: 'string'; readonly value: string };

/** Grid is the set of evaluation timestamps (ms): start + i*step for i < n. */
export interface Grid {
  readonly start: number;
  readonly step: number;
  readonly n: number;
}

export const gridEnd = (g: Grid): number => g.start + (g.n - 1) * g.step;
export const gridTime = (g: Grid, i: number): number => g.start + i * g.step;

/** makeGrid builds the grid of [start, end] with step (ms); step must be > 0 unless start === end. */
export function makeGrid(start: number, end: number, step: number): Grid {
  if (end < start) return { start, step: Math.max(step, 1), n: 0 };
  const s = step > 0 ? step : 1;
  return { start, step: s, n: Math.floor((end - start) / s) + 1 };
}

/** newSeries allocates an all-absent series of n steps. */
export function newSeries(labels: Labels, n: number, dropName: boolean): Series {
  return { labels, values: new Float64Array(n), present: new Uint8Array(n), dropName };
}

/** hasAnyPoint reports whether a series is present at some step. */
export function hasAnyPoint(s: Series): boolean {
  return s.present.includes(1);
}

/** scalarValue builds a scalar value with the same number at every step. */
export function constantScalar(v: number, n: number): Value {
  return { type: 'scalar', values: new Float64Array(n).fill(v) };
}
