// Reducing aggregations (one output series per group): streaming accumulators over typed
// arrays indexed by group*n + step, so large aggregations allocate no per-point objects.

import type { AggregateInput } from './aggregate-input.ts';
import { kahanInc, quantile } from './math.ts';
import type { Series } from './types.ts';

/**
 * Accumulator: `init` takes the first value of a group at a step, `add` every later one,
 * `result` reads the final value. Slots are group*n + step.
 */
interface Accumulator {
  init(slot: number, v: number): void;
  add(slot: number, v: number): void;
  result(slot: number): number;
}

/** streamReduce runs an accumulator over all series and steps and builds the group series. */
function streamReduce(a: AggregateInput, acc: Accumulator): Series[] {
  const G = a.groupLabels.length;
  const n = a.n;
  const seen = new Uint8Array(G * n);
  const drop = new Uint8Array(G);
  a.series.forEach((s, k) => {
    const g = a.groupOf[k]!;
    if (s.dropName) drop[g] = 1;
    const base = g * n;
    for (let i = 0; i < n; i++) {
      if (s.present[i] === 0) continue;
      const slot = base + i;
      if (seen[slot] === 0) {
        seen[slot] = 1;
        acc.init(slot, s.values[i]!);
      } else {
        acc.add(slot, s.values[i]!);
      }
    }
  });
  const out: Series[] = [];
  for (let g = 0; g < G; g++) {
    const present = seen.subarray(g * n, (g + 1) * n);
    if (!present.includes(1)) continue;
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) if (present[i] === 1) values[i] = acc.result(g * n + i);
    out.push({ labels: a.groupLabels[g]!, values, present: present.slice(), dropName: drop[g] === 1 });
  }
  return out;
}

const slots = (a: AggregateInput): number => a.groupLabels.length * a.n;

export function sum(a: AggregateInput): Series[] {
  const s = new Float64Array(slots(a));
  const c = new Float64Array(slots(a));
  return streamReduce(a, {
    init: (i, v) => void ((s[i] = v), (c[i] = 0)),
    add: (i, v) => void ([s[i], c[i]] = kahanInc(v, s[i]!, c[i]!)),
    result: (i) => s[i]! + c[i]!,
  });
}

// avg: a direct Kahan sum while it stays finite, then an incremental mean (Prometheus).
export function avg(a: AggregateInput): Series[] {
  const s = new Float64Array(slots(a));
  const c = new Float64Array(slots(a));
  const m = new Float64Array(slots(a));
  const cnt = new Float64Array(slots(a));
  const inc = new Uint8Array(slots(a));
  return streamReduce(a, {
    init: (i, v) => void ((s[i] = v), (c[i] = 0), (cnt[i] = 1), (inc[i] = 0)),
    add: (i, v) => {
      const count = ++cnt[i]!;
      if (inc[i] === 0) {
        const [ns, nc] = kahanInc(v, s[i]!, c[i]!);
        if (ns !== Infinity && ns !== -Infinity) {
          s[i] = ns;
          c[i] = nc;
          return;
        }
        inc[i] = 1;
        m[i] = s[i]! / (count - 1);
        c[i] = c[i]! / (count - 1);
      }
      const q = (count - 1) / count;
      [m[i], c[i]] = kahanInc(v / count, q * m[i]!, q * c[i]!);
    },
    result: (i) => (inc[i] === 1 ? m[i]! + c[i]! : s[i]! / cnt[i]! + c[i]! / cnt[i]!),
  });
}

export function count(a: AggregateInput): Series[] {
  const n = new Float64Array(slots(a));
  return streamReduce(a, { init: (i) => void (n[i] = 1), add: (i) => void n[i]!++, result: (i) => n[i]! });
}

export function group(a: AggregateInput): Series[] {
  return streamReduce(a, { init: () => undefined, add: () => undefined, result: () => 1 });
}

function extreme(a: AggregateInput, better: (v: number, cur: number) => boolean): Series[] {
  const x = new Float64Array(slots(a));
  return streamReduce(a, {
    init: (i, v) => void (x[i] = v),
    add: (i, v) => {
      if (better(v, x[i]!) || x[i] !== x[i]) x[i] = v;
    },
    result: (i) => x[i]!,
  });
}

export const max = (a: AggregateInput): Series[] => extreme(a, (v, cur) => cur < v);
export const min = (a: AggregateInput): Series[] => extreme(a, (v, cur) => cur > v);

// variance: Welford's algorithm; a NaN or ±Inf first value poisons the group (as Prometheus).
function welford(a: AggregateInput, finish: (variance: number) => number): Series[] {
  const cnt = new Float64Array(slots(a));
  const m = new Float64Array(slots(a));
  const v2 = new Float64Array(slots(a));
  return streamReduce(a, {
    init: (i, v) => void ((cnt[i] = 1), (m[i] = v), (v2[i] = Number.isFinite(v) ? 0 : NaN)),
    add: (i, v) => {
      const c = ++cnt[i]!;
      const delta = v - m[i]!;
      m[i] = m[i]! + delta / c;
      v2[i] = v2[i]! + delta * (v - m[i]!);
    },
    result: (i) => finish(v2[i]! / cnt[i]!),
  });
}

export const stdvar = (a: AggregateInput): Series[] => welford(a, (v) => v);
export const stddev = (a: AggregateInput): Series[] => welford(a, Math.sqrt);

/**
 * collectReduce gathers the present values of each group at each step and reduces them with
 * f(values, step); used where the whole set is needed (quantiles, modes, distinct counts).
 */
export function collectReduce(a: AggregateInput, f: (values: number[], step: number) => number): Series[] {
  const G = a.groupLabels.length;
  const n = a.n;
  const drop = new Uint8Array(G);
  const members: number[][] = Array.from({ length: G }, () => []);
  a.series.forEach((s, k) => {
    members[a.groupOf[k]!]!.push(k);
    if (s.dropName) drop[a.groupOf[k]!] = 1;
  });
  const out: Series[] = [];
  members.forEach((idxs, g) => {
    const values = new Float64Array(n);
    const present = new Uint8Array(n);
    const buf: number[] = [];
    for (let i = 0; i < n; i++) {
      buf.length = 0;
      for (const k of idxs) if (a.series[k]!.present[i] === 1) buf.push(a.series[k]!.values[i]!);
      if (buf.length === 0) continue;
      values[i] = f(buf, i);
      present[i] = 1;
    }
    if (present.includes(1)) out.push({ labels: a.groupLabels[g]!, values, present, dropName: drop[g] === 1 });
  });
  return out;
}

export const quantileAgg = (a: AggregateInput): Series[] => collectReduce(a, (vals, i) => quantile(a.params[0]?.[i] ?? NaN, vals));
