// MetricsQL functions over instant vectors with no PromQL equivalent (semantics in FUNCTIONS.md).

import { QueryError } from './errors.ts';
import { compareLabels, getLabel, labelsKey } from './labels.ts';
import { linearRegression, mean, quantile, variance } from './math.ts';
import { natsortLess } from './natsort.ts';
import { mapValues, scalarArg, stringArgs, vector, vectorArg, type TransformCall, type TransformFunction } from './transform-call.ts';
import type { Series, Value } from './types.ts';

function presentValues(s: Series): Float64Array {
  return s.values.filter((_, i) => s.present[i] === 1);
}

/** rangeStat: the statistic of each series over the whole query range, at every step. */
function rangeStat(f: (vals: Float64Array, c: TransformCall) => number, argIndex = 0): TransformFunction {
  return (c) => vector(vectorArg(c, argIndex).flatMap((s) => {
    const vals = presentValues(s);
    if (vals.length === 0) return [];
    const v = f(vals, c);
    return [{ labels: s.labels, values: new Float64Array(c.grid.n).fill(v), present: new Uint8Array(c.grid.n).fill(1), dropName: !c.node.keepMetricNames || s.dropName }];
  }));
}

/** running: a cumulative statistic over the present points, in step order. */
function running(step: (acc: number, v: number, count: number) => number): TransformFunction {
  return (c) => vector(vectorArg(c, 0).map((s) => {
    let acc = NaN;
    let count = 0;
    const values = s.values.map((v, i) => {
      if (s.present[i] === 0) return acc;
      count++;
      acc = count === 1 ? v : step(acc, v, count);
      return acc;
    });
    return { labels: s.labels, values, present: s.present, dropName: !c.node.keepMetricNames || s.dropName };
  }));
}

// fill returns a series whose absent steps between/after points take a computed value.
function fill(c: TransformCall, f: (s: Series) => { values: Float64Array; present: Uint8Array }): Value {
  return vector(vectorArg(c, 0).map((s) => ({ ...s, ...f(s) })));
}

function keepLast(s: Series): { values: Float64Array; present: Uint8Array } {
  const values = s.values.slice();
  const present = s.present.slice();
  for (let i = 1; i < values.length; i++) {
    if (present[i] === 0 && present[i - 1] === 1) {
      values[i] = values[i - 1]!;
      present[i] = 1;
    }
  }
  return { values, present };
}

function keepNext(s: Series): { values: Float64Array; present: Uint8Array } {
  const values = s.values.slice();
  const present = s.present.slice();
  for (let i = values.length - 2; i >= 0; i--) {
    if (present[i] === 0 && present[i + 1] === 1) {
      values[i] = values[i + 1]!;
      present[i] = 1;
    }
  }
  return { values, present };
}

function interpolate(s: Series): { values: Float64Array; present: Uint8Array } {
  const values = s.values.slice();
  const present = s.present.slice();
  let prev = -1;
  for (let i = 0; i < values.length; i++) {
    if (s.present[i] === 0) continue;
    if (prev >= 0) {
      for (let j = prev + 1; j < i; j++) {
        values[j] = values[prev]! + ((values[i]! - values[prev]!) * (j - prev)) / (i - prev);
        present[j] = 1;
      }
    }
    prev = i;
  }
  return { values, present };
}

function bitmap(op: (a: bigint, b: bigint) => bigint): TransformFunction {
  return (c) => {
    const mask = scalarArg(c, 1);
    return vector(mapValues(c, vectorArg(c, 0), (v, i) => {
      if (!Number.isFinite(v) || !Number.isFinite(mask[i]!) || v < 0 || mask[i]! < 0) return NaN;
      return Number(BigInt.asUintN(64, op(BigInt(Math.trunc(v)), BigInt(Math.trunc(mask[i]!)))));
    }));
  };
}

function sortNumeric(desc: boolean): TransformFunction {
  return (c) => {
    const names = stringArgs(c, 1);
    const series = vectorArg(c, 0).slice();
    if (c.grid.n !== 1) return vector(series);
    series.sort((a, b) => {
      for (const n of names) {
        const x = getLabel(a.labels, n);
        const y = getLabel(b.labels, n);
        if (x === y) continue;
        return natsortLess(x, y) !== desc ? -1 : 1;
      }
      return desc ? -compareLabels(a.labels, b.labels) : compareLabels(a.labels, b.labels);
    });
    return vector(series);
  };
}

const scalarOf = (c: TransformCall, f: (i: number) => number): Value => ({ type: 'scalar', values: Float64Array.from({ length: c.grid.n }, (_, i) => f(i)) });

/** METRICSQL_TRANSFORMS: MetricsQL instant-vector and scalar functions. */
export const METRICSQL_TRANSFORMS: Readonly<Record<string, TransformFunction>> = {
  range_sum: rangeStat((v) => v.reduce((a, b) => a + b, 0)),
  range_avg: rangeStat((v) => mean(v, 0, v.length)),
  range_max: rangeStat((v) => Math.max(...v)),
  range_min: rangeStat((v) => Math.min(...v)),
  range_first: rangeStat((v) => v[0]!),
  range_last: rangeStat((v) => v[v.length - 1]!),
  range_median: rangeStat((v) => quantile(0.5, v)),
  range_quantile: rangeStat((v, c) => quantile(scalarArg(c, 0)[0] ?? NaN, v), 1),
  range_stddev: rangeStat((v) => Math.sqrt(variance(v, 0, v.length))),
  range_stdvar: rangeStat((v) => variance(v, 0, v.length)),
  range_mad: rangeStat((v) => {
    const m = quantile(0.5, v.slice());
    return quantile(0.5, v.map((x) => Math.abs(x - m)));
  }),
  range_zscore: (c) => vector(vectorArg(c, 0).map((s) => {
    const vals = presentValues(s);
    const m = mean(vals, 0, vals.length);
    const sd = Math.sqrt(variance(vals, 0, vals.length));
    return { ...s, values: s.values.map((v) => (v - m) / sd), dropName: true };
  })),
  range_normalize: (c) => vector(c.args.flatMap((_, k) => vectorArg(c, k)).map((s) => {
    const vals = presentValues(s);
    const lo = Math.min(...vals);
    const hi = Math.max(...vals);
    return { ...s, values: s.values.map((v) => (v - lo) / (hi - lo)), dropName: true };
  })),
  range_linear_regression: (c) => vector(vectorArg(c, 0).flatMap((s) => {
    const idx = [...s.present.keys()].filter((i) => s.present[i] === 1);
    if (idx.length < 2) return [];
    const ts = Float64Array.from(idx, (i) => c.grid.start + i * c.grid.step);
    const [slope, intercept] = linearRegression(ts, Float64Array.from(idx, (i) => s.values[i]!), 0, idx.length, c.grid.start);
    const values = Float64Array.from({ length: c.grid.n }, (_, i) => intercept + (slope * i * c.grid.step) / 1000);
    return [{ labels: s.labels, values, present: new Uint8Array(c.grid.n).fill(1), dropName: true }];
  })),
  running_sum: running((acc, v) => acc + v),
  running_avg: running((acc, v, n) => acc + (v - acc) / n),
  running_min: running((acc, v) => Math.min(acc, v)),
  running_max: running((acc, v) => Math.max(acc, v)),
  keep_last_value: (c) => fill(c, keepLast),
  keep_next_value: (c) => fill(c, keepNext),
  interpolate: (c) => fill(c, interpolate),
  remove_resets: (c) => vector(vectorArg(c, 0).map((s) => {
    let correction = 0;
    let prev = NaN;
    const values = s.values.map((v, i) => {
      if (s.present[i] === 0) return v;
      if (v < prev) correction += prev;
      prev = v;
      return v + correction;
    });
    return { ...s, values, dropName: true };
  })),
  smooth_exponential: (c) => {
    const sf = scalarArg(c, 1);
    return vector(vectorArg(c, 0).map((s) => {
      let acc = NaN;
      const values = s.values.map((v, i) => {
        if (s.present[i] === 0) return v;
        const a = Math.min(1, Math.max(0, sf[i]!));
        acc = acc !== acc ? v : acc + a * (v - acc);
        return acc;
      });
      return { ...s, values, dropName: true };
    }));
  },
  union: (c) => {
    const seen = new Set<string>();
    const out: Series[] = [];
    for (let k = 0; k < c.args.length; k++) {
      for (const s of vectorArg(c, k)) {
        const key = labelsKey(s.labels);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(s);
      }
    }
    return vector(out);
  },
  now: (c) => scalarOf(c, () => c.st.now() / 1000),
  bitmap_and: bitmap((a, b) => a & b),
  bitmap_or: bitmap((a, b) => a | b),
  bitmap_xor: bitmap((a, b) => a ^ b),
  sign: (c) => vector(mapValues(c, vectorArg(c, 0), (v) => (v < 0 ? -1 : v > 0 ? 1 : v))),
  ru: (c) => {
    const free = vectorArg(c, 0);
    const max = vectorArg(c, 1);
    const byKey = new Map(max.map((s) => [labelsKey(s.labels), s]));
    return vector(free.flatMap((s) => {
      const m = byKey.get(labelsKey(s.labels)) ?? (max.length === 1 ? max[0] : undefined);
      if (m === undefined) return [];
      const present = s.present.map((p, i) => p & m.present[i]!);
      const values = s.values.map((f, i) => Math.min(100, Math.max(0, ((m.values[i]! - f) / m.values[i]!) * 100)));
      return [{ labels: s.labels, values, present, dropName: true }];
    }));
  },
  sort_by_label_numeric: sortNumeric(false),
  sort_by_label_numeric_desc: sortNumeric(true),
  limit_offset: (c) => {
    const limit = scalarArg(c, 0)[0] ?? NaN;
    const offset = scalarArg(c, 1)[0] ?? NaN;
    if (!(limit >= 0) || !(offset >= 0)) throw new QueryError('limit_offset() needs non-negative limit and offset');
    return vector(vectorArg(c, 2).slice(offset, offset + limit));
  },
};
