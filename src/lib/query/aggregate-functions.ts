// AGGREGATE_FUNCTIONS: the registry of aggregation operators (name → implementation).

import { isValidUtf8 } from '../promql/index.ts';
import { groupKeyer } from './aggregate-grouping.ts';
import type { AggregateFunction, AggregateInput } from './aggregate-input.ts';
import * as reduce from './aggregate-reduce.ts';
import * as select from './aggregate-select.ts';
import { QueryError } from './errors.ts';
import { setLabel } from './labels.ts';
import { formatGoFloat, quantile } from './math.ts';
import { newSeries, type Series } from './types.ts';

export type { AggregateFunction, AggregateInput } from './aggregate-input.ts';

// countValues: one output series per distinct value (formatted as Go does) per group.
function countValues(a: AggregateInput): Series[] {
  const label = a.strParams[0] ?? '';
  if (label === '' || !isValidUtf8(label)) throw new QueryError(`invalid label name ${JSON.stringify(label)}`);
  const g = a.grouping;
  const keyer = groupKeyer(g === null ? { without: false, labels: [label] } : g.without ? g : { without: false, labels: [...g.labels, label] });
  const out = new Map<string, Series>();
  for (const s of a.series) {
    for (let i = 0; i < a.n; i++) {
      if (s.present[i] === 0) continue;
      const ls = setLabel(s.labels, label, formatGoFloat(s.values[i]!));
      const key = keyer.key(ls);
      let o = out.get(key);
      if (o === undefined) out.set(key, (o = newSeries(keyer.labels(ls), a.n, false)));
      o.values[i] = o.present[i] === 1 ? o.values[i]! + 1 : 1;
      o.present[i] = 1;
    }
  }
  return [...out.values()];
}

// perSeries builds MetricsQL aggregations that rewrite every input series from its group's
// values at the same step (share, zscore).
function perSeries(f: (v: number, groupValues: number[]) => number): (a: AggregateInput) => Series[] {
  return (a) => {
    const byGroup: number[][] = a.groupLabels.map(() => []);
    a.series.forEach((_, k) => byGroup[a.groupOf[k]!]!.push(k));
    return a.series.map((s, k) => {
      const mates = byGroup[a.groupOf[k]!]!;
      const values = s.values.map((v, i) => {
        if (s.present[i] === 0) return 0;
        return f(v, mates.filter((m) => a.series[m]!.present[i] === 1).map((m) => a.series[m]!.values[i]!));
      });
      return { ...s, values, dropName: true };
    });
  };
}

const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;
const stddev = (v: number[]): number => {
  const m = mean(v);
  return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / v.length);
};

// quantiles("label", phi1, …, q): one series per phi per group, told apart by `label`.
function quantiles(a: AggregateInput): Series[] {
  const label = a.strParams[0] ?? '';
  if (label === '') throw new QueryError('quantiles() needs a label name as its first argument');
  return a.params.flatMap((phi) => {
    const name = String(phi[0] ?? NaN);
    return reduce.collectReduce(a, (vals, i) => quantile(phi[i]!, vals)).map((s) => ({ ...s, labels: setLabel(s.labels, label, name) }));
  });
}

function mode(vals: number[]): number {
  const counts = new Map<number, number>();
  let best = vals[0]!;
  for (const v of vals) {
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (c > counts.get(best)! || (c === counts.get(best) && v < best)) best = v;
  }
  return best;
}

const batch = (apply: (a: AggregateInput) => Series[]): AggregateFunction => ({ kind: 'batch', apply });

const ENTRIES: Record<string, AggregateFunction> = {
  ...reduce.STREAM_AGGREGATES,
  quantile: batch(reduce.quantileAgg),
  topk: batch(select.topk),
  bottomk: batch(select.bottomk),
  limitk: batch(select.limitk),
  limit_ratio: batch(select.limitRatio),
  count_values: batch(countValues),
  // MetricsQL.
  median: batch((a) => reduce.collectReduce(a, (v) => quantile(0.5, v))),
  mode: batch((a) => reduce.collectReduce(a, mode)),
  any: batch((a) => reduce.collectReduce(a, (v) => v[0]!)),
  distinct: batch((a) => reduce.collectReduce(a, (v) => new Set(v).size)),
  geomean: batch((a) => reduce.collectReduce(a, (v) => Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length))),
  mad: batch((a) => reduce.collectReduce(a, (v) => {
    const m = quantile(0.5, v);
    return quantile(0.5, v.map((x) => Math.abs(x - m)));
  })),
  sum2: batch((a) => reduce.collectReduce(a, (v) => v.reduce((s, x) => s + x * x, 0))),
  share: batch(perSeries((v, g) => v / g.filter((x) => x >= 0).reduce((s, x) => s + x, 0))),
  zscore: batch(perSeries((v, g) => (v - mean(g)) / stddev(g))),
  quantiles: batch(quantiles),
};
for (const [stat, f] of Object.entries(select.STATS)) {
  ENTRIES[`topk_${stat}`] = batch(select.rankedBy(f, true));
  ENTRIES[`bottomk_${stat}`] = batch(select.rankedBy(f, false));
}

/** AGGREGATE_FUNCTIONS maps an aggregation operator to its implementation. */
export const AGGREGATE_FUNCTIONS: ReadonlyMap<string, AggregateFunction> = new Map(Object.entries(ENTRIES));
