// Aggregation expressions: grouping of input series, parameters, MetricsQL
// `limit N`; the per-operator work lives in the AGGREGATE_FUNCTIONS registry.

import type { AggregateExpr } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { AGGREGATE_FUNCTIONS } from './aggregate-functions.ts';
import { QueryError } from './errors.ts';
import { groupKeyer } from './aggregate-grouping.ts';
import type { QueryState } from './query-state.ts';
import type { Grid, Value } from './types.ts';

/** evalAggregate evaluates an aggregation over all steps. */
export async function evalAggregate(e: AggregateExpr, grid: Grid, st: QueryState): Promise<Value> {
  const params: Float64Array[] = [];
  const strParams: string[] = [];
  for (const a of e.args.slice(0, -1)) {
    const v = await st.evaluate(a, grid);
    if (v.type === 'scalar') params.push(v.values);
    else if (v.type === 'string') strParams.push(v.value);
    else throw new QueryError(`parameter of ${e.op}() must be a scalar or a string, got ${v.type}`);
  }
  const input = await st.evaluate(e.args.at(-1)!, grid);
  if (input.type !== 'vector') throw new QueryError(`${e.op}() expects an instant vector, got ${input.type}`);
  const fn = AGGREGATE_FUNCTIONS.get(e.op);
  if (fn === undefined) throw new QueryError(`unknown aggregation "${e.op}"`);
  const keyer = groupKeyer(e.grouping);
  const groupIndex = new Map<string, number>();
  const groupLabels: Labels[] = [];
  const groupOf = new Int32Array(input.series.length);
  input.series.forEach((s, k) => {
    const key = keyer.key(s.labels);
    let g = groupIndex.get(key);
    if (g === undefined) {
      g = groupLabels.length;
      groupIndex.set(key, g);
      groupLabels.push(keyer.labels(s.labels));
    }
    groupOf[k] = g;
  });
  let out = fn({ series: input.series, groupOf, groupLabels, n: grid.n, params, strParams, isInstant: st.isInstant, grouping: e.grouping });
  if (e.limit !== null) out = out.slice(0, e.limit);
  return { type: 'vector', series: out };
}
