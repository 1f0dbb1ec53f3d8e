// Binary expressions: scalar/scalar, vector/scalar, set operators, MetricsQL's default/if/ifnot,
// and (via binary-match.ts) vector/vector with matching.

import type { BinaryExpr, VectorMatching } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { vectorMatch } from './binary-match.ts';
import { applyOp, changesMetricSchema, compareOp, COMPARISON_OPS, METRICSQL_OPS, opCode, SET_OPS } from './binary-ops.ts';
import { LabelSetIndex, signatureFilter } from './label-set-index.ts';
import type { QueryState } from './query-state.ts';
import { hasAnyPoint, type Grid, type Series, type Value } from './types.ts';

/** evalBinary evaluates both operands (concurrently) and combines them. */
export async function evalBinary(e: BinaryExpr, grid: Grid, st: QueryState): Promise<Value> {
  const [l, r] = await Promise.all([st.evaluate(e.lhs, grid), st.evaluate(e.rhs, grid)]);
  if (METRICSQL_OPS.has(e.op)) return { type: 'vector', series: metricsqlOp(e, asSeries(l, grid), r, grid) };
  if (l.type === 'scalar' && r.type === 'scalar') return { type: 'scalar', values: scalarOp(e, l.values, r.values) };
  if (l.type === 'vector' && r.type === 'scalar') return { type: 'vector', series: vectorScalar(e, l.series, r.values, false) };
  if (l.type === 'scalar' && r.type === 'vector') return { type: 'vector', series: vectorScalar(e, r.series, l.values, true) };
  if (l.type === 'vector' && r.type === 'vector') {
    if (SET_OPS.has(e.op)) return { type: 'vector', series: setOp(e, l.series, r.series, grid.n) };
    return { type: 'vector', series: vectorMatch(e, l.series, r.series, grid) };
  }
  throw new Error(`binary operator "${e.op}" cannot combine ${l.type} and ${r.type}`);
}

function scalarOp(e: BinaryExpr, a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  const isCmp = COMPARISON_OPS.has(e.op);
  const code = opCode(e.op);
  for (let i = 0; i < a.length; i++) out[i] = isCmp ? (compareOp(code, a[i]!, b[i]!) ? 1 : 0) : applyOp(code, a[i]!, b[i]!);
  return out;
}

// vectorScalar: comparisons filter (keeping the vector's value even when the scalar is on the
// left); arithmetic and `bool` results lose the metric name.
function vectorScalar(e: BinaryExpr, series: readonly Series[], scalar: Float64Array, scalarLeft: boolean): Series[] {
  const isCmp = COMPARISON_OPS.has(e.op);
  const code = opCode(e.op);
  const bool = e.returnBool;
  const dropName = changesMetricSchema(e.op) || bool;
  const out: Series[] = [];
  const n = scalar.length;
  for (const s of series) {
    const values = new Float64Array(n);
    const present = new Uint8Array(n);
    const any = isCmp
      ? compareScalar(code, bool, scalarLeft, scalar, s.values, s.present, values, present)
      : applyScalar(code, scalarLeft, scalar, s.values, s.present, values, present);
    if (any) out.push({ labels: s.labels, values, present, dropName: s.dropName || dropName });
  }
  return out;
}

// The per-point loops of vectorScalar are functions of their own, called once per series: as an
// inner loop, V8 compiled the loop alone (on-stack replacement) and left that code at every
// loop exit, once per series (58 deopts in one range query of 58 series).

// applyScalar writes op(point, scalar) (or op(scalar, point)) for each present point into
// values/present; it reports whether any point was present.
function applyScalar(code: number, scalarLeft: boolean, scalar: Float64Array, inValues: Float64Array, inPresent: Uint8Array, values: Float64Array, present: Uint8Array): boolean {
  let any = false;
  for (let i = 0; i < scalar.length; i++) {
    if (inPresent[i] === 0) continue;
    const v = inValues[i]!;
    values[i] = scalarLeft ? applyOp(code, scalar[i]!, v) : applyOp(code, v, scalar[i]!);
    present[i] = 1;
    any = true;
  }
  return any;
}

// compareScalar keeps the points whose comparison with the scalar holds (their value, or 1 with
// bool; with bool every present point is kept, 0 where it fails); it reports whether any was kept.
function compareScalar(code: number, bool: boolean, scalarLeft: boolean, scalar: Float64Array, inValues: Float64Array, inPresent: Uint8Array, values: Float64Array, present: Uint8Array): boolean {
  let any = false;
  for (let i = 0; i < scalar.length; i++) {
    if (inPresent[i] === 0) continue;
    const v = inValues[i]!;
    const keep = scalarLeft ? compareOp(code, scalar[i]!, v) : compareOp(code, v, scalar[i]!);
    if (!keep && !bool) continue;
    values[i] = bool ? (keep ? 1 : 0) : v;
    present[i] = 1;
    any = true;
  }
  return any;
}

/**
 * SignaturePresence: the series of one side numbered by matching signature, and per signature the
 * OR of its series' presence. of(ls) is the union for ls's signature, undefined when no series has it.
 */
class SignaturePresence {
  readonly #index: LabelSetIndex;
  readonly #union: Uint8Array[] = [];

  constructor(series: readonly Series[], m: VectorMatching | null, n: number) {
    this.#index = new LabelSetIndex(signatureFilter(m));
    for (let k = 0; k < series.length; k++) {
      const p = series[k]!.present;
      const u = (this.#union[this.#index.add(series[k]!.labels)] ??= new Uint8Array(n));
      for (let i = 0; i < n; i++) u[i] = u[i]! | p[i]!;
    }
  }

  of(ls: Labels): Uint8Array | undefined {
    const g = this.#index.find(ls);
    return g < 0 ? undefined : this.#union[g];
  }
}

function mask(s: Series, keep: (i: number) => boolean): Series | null {
  const src = s.present;
  const present = new Uint8Array(src.length);
  let any = false;
  for (let i = 0; i < src.length; i++) {
    if (src[i] === 1 && keep(i)) {
      present[i] = 1;
      any = true;
    }
  }
  return any ? { ...s, present } : null;
}

function setOp(e: BinaryExpr, lhs: readonly Series[], rhs: readonly Series[], n: number): Series[] {
  const out: Series[] = [];
  if (e.op === 'or') {
    out.push(...lhs);
    const left = new SignaturePresence(lhs, e.matching, n);
    for (const s of rhs) {
      const u = left.of(s.labels);
      const m = u === undefined ? s : mask(s, (i) => u[i] === 0);
      if (m !== null) out.push(m);
    }
    return out;
  }
  const right = new SignaturePresence(rhs, e.matching, n);
  for (const s of lhs) {
    const u = right.of(s.labels);
    const m = e.op === 'and'
      ? (u === undefined ? null : mask(s, (i) => u[i] === 1))
      : (u === undefined ? s : mask(s, (i) => u[i] === 0));
    if (m !== null) out.push(m);
  }
  return out;
}

function asSeries(v: Value, grid: Grid): Series[] {
  if (v.type === 'vector') return v.series;
  if (v.type === 'scalar') return [{ labels: [], values: v.values, present: new Uint8Array(grid.n).fill(1), dropName: false }];
  throw new Error(`expected a scalar or an instant vector, got ${v.type}`);
}

// metricsqlOp: `a default b` fills a's gaps from b; `a if b` keeps a where b has data;
// `a ifnot b` keeps a where b has none. A scalar b applies to every series of a (NaN = no data).
function metricsqlOp(e: BinaryExpr, lhs: Series[], r: Value, grid: Grid): Series[] {
  const n = grid.n;
  if (r.type === 'scalar') {
    const has = (i: number): boolean => !Number.isNaN(r.values[i]!);
    if (e.op === 'default') {
      if (lhs.length === 0) return asSeries(r, grid);
      return lhs.map((s) => ({
        ...s,
        values: s.values.map((v, i) => (s.present[i] === 1 ? v : r.values[i]!)),
        present: s.present.map((p, i) => (p === 1 || has(i) ? 1 : 0)),
      }));
    }
    return lhs.map((s) => mask(s, (i) => (e.op === 'if' ? has(i) : !has(i)))).filter((s): s is Series => s !== null);
  }
  const rhs = asSeries(r, grid);
  if (e.op === 'default') {
    if (lhs.length === 0) return rhs;
    const index = new LabelSetIndex(signatureFilter(e.matching));
    const bySig: Series[][] = [];
    for (const s of rhs) (bySig[index.add(s.labels)] ??= []).push(s);
    return lhs.map((s) => {
      const g = index.find(s.labels);
      return fillFrom(s, g < 0 ? [] : bySig[g]!, n);
    });
  }
  const right = new SignaturePresence(rhs, e.matching, n);
  return lhs
    .map((s) => {
      const u = right.of(s.labels);
      return mask(s, (i) => (e.op === 'if' ? u !== undefined && u[i] === 1 : u === undefined || u[i] === 0));
    })
    .filter((s): s is Series => s !== null && hasAnyPoint(s));
}

function fillFrom(s: Series, sources: Series[], n: number): Series {
  const values = s.values.slice();
  const present = s.present.slice();
  for (let i = 0; i < n; i++) {
    if (present[i] === 1) continue;
    const src = sources.find((x) => x.present[i] === 1);
    if (src !== undefined) {
      values[i] = src.values[i]!;
      present[i] = 1;
    }
  }
  return { ...s, values, present };
}
