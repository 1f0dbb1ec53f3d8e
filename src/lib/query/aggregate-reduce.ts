// Reducing aggregations (one output series per group): streaming accumulators over typed
// arrays indexed by group*n + step, so large aggregations allocate no per-point objects.

import type { AggregateInput } from './aggregate-input.ts';
import { quantile } from './math.ts';
import type { Series } from './types.ts';

/**
 * Slots: every group has n steps, slot = group*n + step. `seen` marks slots that got a value;
 * `drop` marks groups with an input whose name is to be dropped.
 */
interface Slots {
  readonly G: number;
  readonly n: number;
  readonly seen: Uint8Array;
  readonly drop: Uint8Array;
}

function slotsOf(a: AggregateInput): Slots {
  const G = a.groupLabels.length;
  return { G, n: a.n, seen: new Uint8Array(G * a.n), drop: new Uint8Array(G) };
}

/** buildOutput makes one series per group that got any value, reading results per slot. */
function buildOutput(a: AggregateInput, sl: Slots, result: (slot: number) => number): Series[] {
  const out: Series[] = [];
  const { G, n, seen } = sl;
  for (let g = 0; g < G; g++) {
    const present = seen.slice(g * n, (g + 1) * n);
    if (!present.includes(1)) continue;
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) if (present[i] === 1) values[i] = result(g * n + i);
    out.push({ labels: a.groupLabels[g]!, values, present, dropName: sl.drop[g] === 1 });
  }
  return out;
}

// The loops below are written out per operator (no per-point callbacks): they run once per
// input point and dominate large aggregations.

export function sum(a: AggregateInput): Series[] {
  const sl = slotsOf(a);
  const { n, seen } = sl;
  const s = new Float64Array(sl.G * n);
  const c = new Float64Array(sl.G * n);
  a.series.forEach((ser, k) => {
    const base = a.groupOf[k]! * n;
    if (ser.dropName) sl.drop[a.groupOf[k]!] = 1;
    const p = ser.present;
    const v = ser.values;
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      const slot = base + i;
      const x = v[i]!;
      if (seen[slot] === 0) {
        seen[slot] = 1;
        s[slot] = x;
        continue;
      }
      // Kahan–Neumaier step, inlined.
      const sum0 = s[slot]!;
      const t = sum0 + x;
      if (t === Infinity || t === -Infinity) c[slot] = 0;
      else if (Math.abs(sum0) >= Math.abs(x)) c[slot] = c[slot]! + (sum0 - t + x);
      else c[slot] = c[slot]! + (x - t + sum0);
      s[slot] = t;
    }
  });
  return buildOutput(a, sl, (slot) => s[slot]! + c[slot]!);
}

// avg: a direct Kahan sum while it stays finite, then an incremental mean (Prometheus).
export function avg(a: AggregateInput): Series[] {
  const sl = slotsOf(a);
  const { n, seen } = sl;
  const s = new Float64Array(sl.G * n);
  const c = new Float64Array(sl.G * n);
  const m = new Float64Array(sl.G * n);
  const cnt = new Float64Array(sl.G * n);
  const inc = new Uint8Array(sl.G * n);
  a.series.forEach((ser, k) => {
    const base = a.groupOf[k]! * n;
    if (ser.dropName) sl.drop[a.groupOf[k]!] = 1;
    const p = ser.present;
    const v = ser.values;
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      const slot = base + i;
      const x = v[i]!;
      if (seen[slot] === 0) {
        seen[slot] = 1;
        s[slot] = x;
        cnt[slot] = 1;
        continue;
      }
      const count = ++cnt[slot]!;
      if (inc[slot] === 0) {
        const sum0 = s[slot]!;
        const t = sum0 + x;
        if (t !== Infinity && t !== -Infinity) {
          c[slot] = c[slot]! + (Math.abs(sum0) >= Math.abs(x) ? sum0 - t + x : x - t + sum0);
          s[slot] = t;
          continue;
        }
        inc[slot] = 1;
        m[slot] = sum0 / (count - 1);
        c[slot] = c[slot]! / (count - 1);
      }
      const q = (count - 1) / count;
      const add = x / count;
      const mq = q * m[slot]!;
      const t = mq + add;
      c[slot] = t === Infinity || t === -Infinity ? 0 : q * c[slot]! + (Math.abs(mq) >= Math.abs(add) ? mq - t + add : add - t + mq);
      m[slot] = t;
    }
  });
  return buildOutput(a, sl, (slot) => (inc[slot] === 1 ? m[slot]! + c[slot]! : s[slot]! / cnt[slot]! + c[slot]! / cnt[slot]!));
}

/** countLike counts points per slot; `group` reports 1 instead of the count. */
function countLike(a: AggregateInput, one: boolean): Series[] {
  const sl = slotsOf(a);
  const { n, seen } = sl;
  const cnt = new Float64Array(sl.G * n);
  a.series.forEach((ser, k) => {
    const base = a.groupOf[k]! * n;
    if (ser.dropName) sl.drop[a.groupOf[k]!] = 1;
    const p = ser.present;
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      seen[base + i] = 1;
      cnt[base + i]!++;
    }
  });
  return buildOutput(a, sl, (slot) => (one ? 1 : cnt[slot]!));
}

export const count = (a: AggregateInput): Series[] => countLike(a, false);
export const group = (a: AggregateInput): Series[] => countLike(a, true);

// extreme: max (or min); a NaN held value is always replaced, as Prometheus does.
function extreme(a: AggregateInput, isMax: boolean): Series[] {
  const sl = slotsOf(a);
  const { n, seen } = sl;
  const x = new Float64Array(sl.G * n);
  a.series.forEach((ser, k) => {
    const base = a.groupOf[k]! * n;
    if (ser.dropName) sl.drop[a.groupOf[k]!] = 1;
    const p = ser.present;
    const v = ser.values;
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      const slot = base + i;
      const f = v[i]!;
      const cur = x[slot]!;
      if (seen[slot] === 0) {
        seen[slot] = 1;
        x[slot] = f;
      } else if ((isMax ? cur < f : cur > f) || cur !== cur) {
        x[slot] = f;
      }
    }
  });
  return buildOutput(a, sl, (slot) => x[slot]!);
}

export const max = (a: AggregateInput): Series[] => extreme(a, true);
export const min = (a: AggregateInput): Series[] => extreme(a, false);

// welford: Welford's algorithm; a NaN or ±Inf first value poisons the group (as Prometheus).
function welford(a: AggregateInput, finish: (variance: number) => number): Series[] {
  const sl = slotsOf(a);
  const { n, seen } = sl;
  const cnt = new Float64Array(sl.G * n);
  const m = new Float64Array(sl.G * n);
  const v2 = new Float64Array(sl.G * n);
  a.series.forEach((ser, k) => {
    const base = a.groupOf[k]! * n;
    if (ser.dropName) sl.drop[a.groupOf[k]!] = 1;
    const p = ser.present;
    const v = ser.values;
    for (let i = 0; i < n; i++) {
      if (p[i] === 0) continue;
      const slot = base + i;
      const f = v[i]!;
      if (seen[slot] === 0) {
        seen[slot] = 1;
        cnt[slot] = 1;
        m[slot] = f;
        v2[slot] = Number.isFinite(f) ? 0 : NaN;
        continue;
      }
      const c = ++cnt[slot]!;
      const delta = f - m[slot]!;
      m[slot] = m[slot]! + delta / c;
      v2[slot] = v2[slot]! + delta * (f - m[slot]!);
    }
  });
  return buildOutput(a, sl, (slot) => finish(v2[slot]! / cnt[slot]!));
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
      for (const k of idxs) {
        const s = a.series[k]!;
        if (s.present[i] === 1) buf.push(s.values[i]!);
      }
      if (buf.length === 0) continue;
      values[i] = f(buf, i);
      present[i] = 1;
    }
    if (present.includes(1)) out.push({ labels: a.groupLabels[g]!, values, present, dropName: drop[g] === 1 });
  });
  return out;
}

export const quantileAgg = (a: AggregateInput): Series[] => collectReduce(a, (vals, i) => quantile(a.params[0]?.[i] ?? NaN, vals));
