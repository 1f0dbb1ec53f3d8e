// The contract of instant-vector ("transform") functions and helpers they share.

import type { FunctionCall } from '../promql/index.ts';
import { QueryError } from './errors.ts';
import { ALL_LABELS, LabelSetIndex } from './label-set-index.ts';
import type { QueryState } from './query-state.ts';
import type { Grid, Series, Value } from './types.ts';

/** TransformCall: the evaluated arguments (in order), the call node, the grid and the query. */
export interface TransformCall {
  readonly args: readonly Value[];
  readonly node: FunctionCall;
  readonly grid: Grid;
  readonly st: QueryState;
}

/** TransformFunction computes a function whose arguments are not range vectors. */
export type TransformFunction = (c: TransformCall) => Value | Promise<Value>;

export function vectorArg(c: TransformCall, i: number): Series[] {
  const v = c.args[i];
  if (v?.type !== 'vector') throw new QueryError(`argument ${i + 1} of ${c.node.func}() must be an instant vector`);
  return v.series;
}

export function scalarArg(c: TransformCall, i: number): Float64Array {
  const v = c.args[i];
  if (v?.type !== 'scalar') throw new QueryError(`argument ${i + 1} of ${c.node.func}() must be a scalar`);
  return v.values;
}

export function stringArg(c: TransformCall, i: number): string {
  const v = c.args[i];
  if (v?.type !== 'string') throw new QueryError(`argument ${i + 1} of ${c.node.func}() must be a string`);
  return v.value;
}

export function stringArgs(c: TransformCall, from: number): string[] {
  const out: string[] = [];
  for (let i = from; i < c.args.length; i++) out.push(stringArg(c, i));
  return out;
}

export const vector = (series: Series[]): Value => ({ type: 'vector', series });

/**
 * mapValues applies f to every present point; a NaN-free `keep` can drop points. The result
 * drops the metric name (delayed) unless keepName or the call says keep_metric_names.
 */
export function mapValues(c: TransformCall, series: readonly Series[], f: (v: number, step: number) => number, keepName = false): Series[] {
  const keep = keepName || c.node.keepMetricNames;
  return series.map((s) => {
    const present = s.present;
    const src = s.values;
    const values = new Float64Array(src.length);
    for (let i = 0; i < src.length; i++) if (present[i] === 1) values[i] = f(src[i]!, i);
    return { labels: s.labels, values, present, dropName: keep ? s.dropName : true };
  });
}

/**
 * mergeSameLabels merges series that ended up with identical label sets (after relabelling);
 * overlapping points are an error, as in Prometheus.
 */
export function mergeSameLabels(series: readonly Series[]): Series[] {
  // Every query's result passes here: label sets are numbered without a key string per series.
  const index = new LabelSetIndex(ALL_LABELS);
  const out: Series[] = [];
  for (let j = 0; j < series.length; j++) {
    const s = series[j]!;
    const k = index.add(s.labels);
    if (k === out.length) {
      out.push(s);
      continue;
    }
    const prev = out[k]!;
    const values = prev.values.slice();
    const present = prev.present.slice();
    const sp = s.present;
    const sv = s.values;
    for (let i = 0; i < present.length; i++) {
      if (sp[i] === 0) continue;
      if (present[i] === 1) throw new QueryError('vector cannot contain metrics with the same labelset');
      values[i] = sv[i]!;
      present[i] = 1;
    }
    out[k] = { ...prev, values, present, dropName: prev.dropName && s.dropName };
  }
  return out;
}
