// Selecting aggregations: topk, bottomk, limitk, limit_ratio (per step, as Prometheus) and
// MetricsQL's topk_max & co (whole series ranked by a statistic over the range).

import type { AggregateInput } from './aggregate-input.ts';
import { QueryError } from './errors.ts';
import { compareNaNFirst, quantile } from './math.ts';
import type { Series } from './types.ts';
import { labelsHash } from './xxhash64.ts';

type Less = (a: number, b: number) => boolean;

/**
 * StepHeaps holds one bounded heap per step, as Go's container/heap (push with sift-up,
 * replace-top with sift-down) over series indexes keyed by their values, so ties resolve as
 * in Prometheus. topk keeps min-heaps with NaN smallest; bottomk max-heaps with NaN largest.
 * Series are offered one at a time across all steps, which reads each series contiguously.
 */
class StepHeaps {
  readonly idx: Int32Array;
  readonly val: Float64Array;
  readonly size: Int32Array;
  private readonly cap: Int32Array;
  private readonly maxK: number;
  private readonly top: boolean;

  constructor(n: number, maxK: number, top: boolean) {
    this.idx = new Int32Array(n * maxK);
    this.val = new Float64Array(n * maxK);
    this.size = new Int32Array(n);
    this.cap = new Int32Array(n);
    this.maxK = maxK;
    this.top = top;
  }

  /** reset empties every heap; caps[i] is the k of step i. */
  reset(caps: Int32Array): void {
    this.size.fill(0);
    this.cap.set(caps);
  }

  private lt(b: number, i: number, j: number): boolean {
    const x = this.val[b + i]!;
    const y = this.val[b + j]!;
    return x !== x || (this.top ? x < y : x > y);
  }

  private swap(b: number, i: number, j: number): void {
    const t = this.idx[b + i]!;
    this.idx[b + i] = this.idx[b + j]!;
    this.idx[b + j] = t;
    const v = this.val[b + i]!;
    this.val[b + i] = this.val[b + j]!;
    this.val[b + j] = v;
  }

  /** offer adds series x with value v at step i when the heap has room or v beats its worst. */
  offer(i: number, x: number, v: number): void {
    const b = i * this.maxK;
    const size = this.size[i]!;
    if (size < this.cap[i]!) {
      let j = size;
      this.idx[b + j] = x;
      this.val[b + j] = v;
      this.size[i] = size + 1;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (!this.lt(b, j, p)) break;
        this.swap(b, p, j);
        j = p;
      }
      return;
    }
    if (size === 0) return;
    const worst = this.val[b]!;
    if (!((this.top ? worst < v : worst > v) || (worst !== worst && v === v))) return;
    this.idx[b] = x;
    this.val[b] = v;
    let k = 0;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= size) break;
      const j = l + 1 < size && this.lt(b, l + 1, l) ? l + 1 : l;
      if (!this.lt(b, j, k)) break;
      this.swap(b, k, j);
      k = j;
    }
  }

  chosen(i: number): number[] {
    return Array.from(this.idx.subarray(i * this.maxK, i * this.maxK + this.size[i]!));
  }
}

// topk keeps a min-heap (NaN smallest) of the k largest; bottomk a max-heap of the k smallest.
const topLess: Less = (a, b) => a !== a || a < b;
const bottomLess: Less = (a, b) => a !== a || a > b;

function kOf(a: AggregateInput, what: string): Float64Array {
  const p = a.params[0]!;
  if (p.some((v) => v !== v)) throw new QueryError(`Parameter value is NaN in ${what}()`);
  return p;
}

function members(a: AggregateInput): number[][] {
  const groups: number[][] = a.groupLabels.map(() => []);
  for (let k = 0; k < a.series.length; k++) groups[a.groupOf[k]!]!.push(k);
  return groups;
}

/** emit builds masked copies of the selected series; for instant queries in the selection order. */
function emit(a: AggregateInput, selected: Uint8Array[], order: number[]): Series[] {
  const out: Series[] = [];
  const seen = new Set<number>();
  const idxs = a.isInstant ? [...order, ...a.series.map((_, k) => k)] : a.series.map((_, k) => k);
  for (const k of idxs) {
    if (seen.has(k)) continue;
    seen.add(k);
    const sel = selected[k]!;
    if (!sel.includes(1)) continue;
    const s = a.series[k]!;
    out.push({ ...s, present: s.present.map((p, i) => p & sel[i]!) });
  }
  return out;
}

function topBottom(a: AggregateInput, top: boolean): Series[] {
  const kParam = kOf(a, top ? 'topk' : 'bottomk');
  const caps = Int32Array.from(kParam, (k) => Math.max(0, Math.min(Math.trunc(k), a.series.length)));
  const maxK = caps.reduce((m, k) => Math.max(m, k), 0);
  if (maxK < 1) return [];
  const selected = a.series.map(() => new Uint8Array(a.n));
  const order: number[] = [];
  const heaps = new StepHeaps(a.n, maxK, top);
  for (const idxs of members(a)) {
    heaps.reset(caps);
    for (const x of idxs) {
      const p = a.series[x]!.present;
      const v = a.series[x]!.values;
      for (let i = 0; i < a.n; i++) if (p[i] === 1) heaps.offer(i, x, v[i]!);
    }
    for (let i = 0; i < a.n; i++) {
      const chosen = heaps.chosen(i);
      for (const x of chosen) selected[x]![i] = 1;
      if (i === 0) order.push(...sortSelection(chosen, (x) => a.series[x]!.values[0]!, top ? topLess : bottomLess));
    }
  }
  return emit(a, selected, order);
}

// sortSelection orders a group's selection for an instant result: topk descending, bottomk
// ascending, NaN last, ties in heap order (Prometheus sorts the heap with a stable sort).
function sortSelection(items: number[], val: (x: number) => number, less: Less): number[] {
  return [...items].sort((p, q) => {
    const vp = val(p);
    const vq = val(q);
    if (vp !== vp && vq !== vq) return 0;
    if (less(vq, vp)) return -1;
    return less(vp, vq) ? 1 : 0;
  });
}

export const topk = (a: AggregateInput): Series[] => topBottom(a, true);
export const bottomk = (a: AggregateInput): Series[] => topBottom(a, false);

export function limitk(a: AggregateInput): Series[] {
  const kParam = kOf(a, 'limitk');
  const selected = a.series.map(() => new Uint8Array(a.n));
  for (const idxs of members(a)) {
    for (let i = 0; i < a.n; i++) {
      const k = Math.min(Math.trunc(kParam[i]!), a.series.length);
      let taken = 0;
      for (const x of idxs) {
        if (taken >= k) break;
        if (a.series[x]!.present[i] === 0) continue;
        selected[x]![i] = 1;
        taken++;
      }
    }
  }
  return emit(a, selected, []);
}

// limit_ratio keeps a series when its label hash, scaled to [0, 1), falls under the ratio
// (or, for a negative ratio, at or above 1 + ratio): a stable, complementary sample.
export function limitRatio(a: AggregateInput): Series[] {
  const r = a.params[0]!;
  if (r.some((v) => v !== v)) throw new QueryError('Ratio value is NaN in limit_ratio()');
  const offsets = a.series.map((s) => Number(labelsHash(s.labels)) / 18446744073709551615);
  const selected = a.series.map((s, k) => {
    const sel = new Uint8Array(a.n);
    for (let i = 0; i < a.n; i++) {
      const ratio = Math.max(-1, Math.min(1, r[i]!));
      if (ratio === 0 || s.present[i] === 0) continue;
      const o = offsets[k]!;
      if ((ratio >= 0 && o < ratio) || (ratio < 0 && o >= 1 + ratio)) sel[i] = 1;
    }
    return sel;
  });
  return emit(a, selected, []);
}

/** rankedBy builds MetricsQL topk_<stat>/bottomk_<stat>: whole series ranked by a statistic. */
export function rankedBy(stat: (vals: number[]) => number, top: boolean): (a: AggregateInput) => Series[] {
  return (a) => {
    const kParam = a.params[0]!;
    const out: Series[] = [];
    for (const idxs of members(a)) {
      const scored = idxs.map((x) => {
        const s = a.series[x]!;
        const vals = [...s.values].filter((v, i) => s.present[i] === 1 && v === v);
        return { x, score: vals.length === 0 ? NaN : stat(vals) };
      });
      scored.sort((p, q) => (top ? compareNaNFirst(q.score, p.score) : compareNaNFirst(p.score, q.score)));
      const nanLast = scored.filter((e) => e.score === e.score).concat(scored.filter((e) => e.score !== e.score));
      const k = Math.trunc(kParam.reduce((m, v) => (v === v ? Math.max(m, v) : m), 0));
      for (const e of nanLast.slice(0, k)) out.push(a.series[e.x]!);
    }
    return out;
  };
}

export const STATS: Readonly<Record<string, (vals: number[]) => number>> = {
  max: (v) => Math.max(...v),
  min: (v) => Math.min(...v),
  avg: (v) => v.reduce((s, x) => s + x, 0) / v.length,
  median: (v) => quantile(0.5, v),
  last: (v) => v[v.length - 1]!,
};
