// Instant-vector and scalar functions of the Prometheus 3 function list (histogram and label
// functions live in their own files).

import { absentLabels } from './rollup-eval.ts';
import { compareLabels, getLabel } from './labels.ts';
import { compareNaNFirst } from './math.ts';
import { natsortLess } from './natsort.ts';
import {
  mapValues, scalarArg, stringArgs, vector, vectorArg, type TransformCall, type TransformFunction,
} from './transform-call.ts';
import type { Series, Value } from './types.ts';

const simple = (f: (v: number) => number): TransformFunction => (c) => vector(mapValues(c, vectorArg(c, 0), f));

function clamp(c: TransformCall, lo: (i: number) => number, hi: (i: number) => number): Value {
  const out = mapValues(c, vectorArg(c, 0), (v, i) => Math.max(lo(i), Math.min(hi(i), v)));
  // Where max < min there is no result at that step.
  return vector(out.map((s) => ({ ...s, present: s.present.map((p, i) => (hi(i) < lo(i) ? 0 : p)) })));
}

// dateFunction: with no argument, of the evaluation time; else of each value as Unix seconds.
function dateFunction(f: (d: Date) => number): TransformFunction {
  const at = (seconds: number): number => {
    const d = new Date(Math.trunc(seconds) * 1000);
    return Number.isNaN(d.getTime()) ? NaN : f(d);
  };
  return (c) => {
    if (c.args.length === 0) {
      const n = c.grid.n;
      const values = Float64Array.from({ length: n }, (_, i) => at((c.grid.start + i * c.grid.step) / 1000));
      return vector([{ labels: [], values, present: new Uint8Array(n).fill(1), dropName: false }]);
    }
    return vector(mapValues(c, vectorArg(c, 0), at));
  };
}

const dayOfYear = (d: Date): number => (Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000 + 1;

// sortBy orders an instant result (range results are sorted by labels anyway).
function sortBy(cmp: (a: Series, b: Series) => number): TransformFunction {
  return (c) => {
    const series = vectorArg(c, 0);
    if (c.grid.n !== 1) return vector(series.slice());
    return vector(series.slice().sort(cmp));
  };
}

const byValue = (desc: boolean) => (a: Series, b: Series): number => {
  const x = a.values[0]!;
  const y = b.values[0]!;
  if (x !== x || y !== y) return x !== x ? (y !== y ? 0 : 1) : -1;
  return desc ? compareNaNFirst(y, x) : compareNaNFirst(x, y);
};

function byLabels(names: string[], desc: boolean) {
  return (a: Series, b: Series): number => {
    for (const n of names) {
      const x = getLabel(a.labels, n);
      const y = getLabel(b.labels, n);
      if (x === y) continue;
      return natsortLess(x, y) !== desc ? -1 : 1;
    }
    return desc ? -compareLabels(a.labels, b.labels) : compareLabels(a.labels, b.labels);
  };
}

function perStep(c: TransformCall, f: (step: number) => number): Float64Array {
  return Float64Array.from({ length: c.grid.n }, (_, i) => f(i));
}

/** PROMETHEUS_TRANSFORMS: Prometheus functions over instant vectors and scalars. */
export const PROMETHEUS_TRANSFORMS: Readonly<Record<string, TransformFunction>> = {
  abs: simple(Math.abs), ceil: simple(Math.ceil), floor: simple(Math.floor), exp: simple(Math.exp),
  sqrt: simple(Math.sqrt), ln: simple(Math.log), log2: simple(Math.log2), log10: simple(Math.log10),
  sin: simple(Math.sin), cos: simple(Math.cos), tan: simple(Math.tan), asin: simple(Math.asin),
  acos: simple(Math.acos), atan: simple(Math.atan), sinh: simple(Math.sinh), cosh: simple(Math.cosh),
  tanh: simple(Math.tanh), asinh: simple(Math.asinh), acosh: simple(Math.acosh), atanh: simple(Math.atanh),
  rad: simple((v) => (v * Math.PI) / 180),
  deg: simple((v) => (v * 180) / Math.PI),
  sgn: simple((v) => (v < 0 ? -1 : v > 0 ? 1 : v)),
  round: (c) => {
    const to = c.args.length > 1 ? scalarArg(c, 1) : null;
    return vector(mapValues(c, vectorArg(c, 0), (v, i) => {
      const inv = 1 / (to === null ? 1 : to[i]!);
      return Math.floor(v * inv + 0.5) / inv;
    }));
  },
  clamp: (c) => clamp(c, (i) => scalarArg(c, 1)[i]!, (i) => scalarArg(c, 2)[i]!),
  clamp_min: (c) => clamp(c, (i) => scalarArg(c, 1)[i]!, () => Infinity),
  clamp_max: (c) => clamp(c, () => -Infinity, (i) => scalarArg(c, 1)[i]!),
  pi: (c) => ({ type: 'scalar', values: new Float64Array(c.grid.n).fill(Math.PI) }),
  // Query-shape functions (Prometheus 3): the step is 0 for an instant query.
  step: (c) => ({ type: 'scalar', values: new Float64Array(c.grid.n).fill(c.st.queryStep / 1000) }),
  range: (c) => ({ type: 'scalar', values: new Float64Array(c.grid.n).fill((c.st.queryEnd - c.st.queryStart) / 1000) }),
  start: (c) => ({ type: 'scalar', values: new Float64Array(c.grid.n).fill(c.st.queryStart / 1000) }),
  end: (c) => ({ type: 'scalar', values: new Float64Array(c.grid.n).fill(c.st.queryEnd / 1000) }),
  min_of: (c) => ({ type: 'scalar', values: scalarArg(c, 0).map((a, i) => Math.min(a, scalarArg(c, 1)[i]!)) }),
  max_of: (c) => ({ type: 'scalar', values: scalarArg(c, 0).map((a, i) => Math.max(a, scalarArg(c, 1)[i]!)) }),
  time: (c) => ({ type: 'scalar', values: perStep(c, (i) => (c.grid.start + i * c.grid.step) / 1000) }),
  vector: (c) => vector([{ labels: [], values: scalarArg(c, 0), present: new Uint8Array(c.grid.n).fill(1), dropName: false }]),
  scalar: (c) => {
    const series = vectorArg(c, 0);
    return {
      type: 'scalar',
      values: perStep(c, (i) => {
        let found: number | undefined;
        for (const s of series) {
          if (s.present[i] === 0) continue;
          if (found !== undefined) return NaN;
          found = s.values[i]!;
        }
        return found ?? NaN;
      }),
    };
  },
  // timestamp: the time of the sample a selector picked, else the evaluation time.
  timestamp: (c) => vector(vectorArg(c, 0).map((s) => {
    const ts = s.timestamps;
    const values = s.values.map((_v, i) => (ts === undefined ? c.grid.start + i * c.grid.step : ts[i]!) / 1000);
    return { labels: s.labels, values, present: s.present, dropName: !c.node.keepMetricNames || s.dropName };
  })),
  absent: (c) => {
    const series = vectorArg(c, 0);
    const present = new Uint8Array(c.grid.n);
    for (let i = 0; i < c.grid.n; i++) present[i] = series.some((s) => s.present[i] === 1) ? 0 : 1;
    if (!present.includes(1)) return vector([]);
    const arg = c.node.args[0]!;
    const sel = arg.type === 'VectorSelector' ? arg : arg.type === 'MatrixSelector' ? arg.selector : null;
    return vector([{ labels: sel === null ? [] : absentLabels(sel), values: new Float64Array(c.grid.n).fill(1), present, dropName: true }]);
  },
  sort: sortBy(byValue(false)),
  sort_desc: sortBy(byValue(true)),
  sort_by_label: (c) => sortBy(byLabels(stringArgs(c, 1), false))(c),
  sort_by_label_desc: (c) => sortBy(byLabels(stringArgs(c, 1), true))(c),
  day_of_month: dateFunction((d) => d.getUTCDate()),
  day_of_week: dateFunction((d) => d.getUTCDay()),
  day_of_year: dateFunction(dayOfYear),
  days_in_month: dateFunction((d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()),
  hour: dateFunction((d) => d.getUTCHours()),
  minute: dateFunction((d) => d.getUTCMinutes()),
  month: dateFunction((d) => d.getUTCMonth() + 1),
  year: dateFunction((d) => d.getUTCFullYear()),
};
