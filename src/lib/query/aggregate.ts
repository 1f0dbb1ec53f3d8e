// Aggregation expressions: grouping of input series, parameters, MetricsQL
// `limit N`; the per-operator work lives in the AGGREGATE_FUNCTIONS registry.

import { FUNCTIONS, type AggregateExpr } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import type { AggregateInput, GroupAccumulator } from './aggregate-input.ts';
import { evalRollupCall } from './rollup-eval.ts';
import { evalVectorSelector } from './selector.ts';
import { AGGREGATE_FUNCTIONS } from './aggregate-functions.ts';
import { QueryError } from './errors.ts';
import { groupKeyer } from './aggregate-grouping.ts';
import type { QueryState } from './query-state.ts';
import type { Grid, Series, Value } from './types.ts';

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
  const fn = AGGREGATE_FUNCTIONS.get(e.op);
  if (fn === undefined) throw new QueryError(`unknown aggregation "${e.op}"`);
  const arg = e.args.at(-1)!;
  let out: Series[];
  if (fn.kind === 'stream') {
    out = await streamAggregate(e, fn.create, grid, st);
  } else {
    const input = await st.evaluate(arg, grid);
    if (input.type !== 'vector') throw new QueryError(`${e.op}() expects an instant vector, got ${input.type}`);
    out = fn.apply(groupInput(e, input.series, grid, st, params, strParams));
  }
  if (e.limit !== null) out = out.slice(0, e.limit);
  return { type: 'vector', series: out };
}

function groupInput(e: AggregateExpr, series: Series[], grid: Grid, st: QueryState, params: Float64Array[], strParams: string[]): AggregateInput {
  const keyer = groupKeyer(e.grouping);
  const groupIndex = new Map<string, number>();
  const groupLabels: Labels[] = [];
  const groupOf = new Int32Array(series.length);
  series.forEach((s, k) => {
    const key = keyer.key(s.labels);
    let g = groupIndex.get(key);
    if (g === undefined) {
      g = groupLabels.length;
      groupIndex.set(key, g);
      groupLabels.push(keyer.labels(s.labels));
    }
    groupOf[k] = g;
  });
  return { series, groupOf, groupLabels, n: grid.n, params, strParams, isInstant: st.isInstant, grouping: e.grouping };
}

/**
 * streamAggregate feeds each input series to its group's accumulator as soon as it exists;
 * for a rollup or a selector argument the input is never materialised.
 */
async function streamAggregate(e: AggregateExpr, create: (n: number) => GroupAccumulator, grid: Grid, st: QueryState): Promise<Series[]> {
  const keyer = groupKeyer(e.grouping);
  const groups = new Map<string, { labels: Labels; acc: GroupAccumulator; drop: boolean }>();
  const add = (s: Series): void => {
    const key = keyer.key(s.labels);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { labels: keyer.labels(s.labels), acc: create(grid.n), drop: false }));
    if (s.dropName) g.drop = true;
    g.acc.add(s.present, s.values);
  };
  const arg = e.args.at(-1)!;
  if (arg.type === 'FunctionCall' && FUNCTIONS.get(arg.func)?.args.includes('range')) {
    await evalRollupCall(arg, grid, st, add);
  } else if (arg.type === 'VectorSelector') {
    await evalVectorSelector(arg, grid, st, false, add);
  } else {
    const v = await st.evaluate(arg, grid);
    if (v.type !== 'vector') throw new QueryError(`${e.op}() expects an instant vector, got ${v.type}`);
    v.series.forEach(add);
  }
  const out: Series[] = [];
  for (const g of groups.values()) {
    const { values, present } = g.acc.finish();
    if (present.includes(1)) out.push({ labels: g.labels, values, present, dropName: g.drop });
  }
  return out;
}
