// Vector-to-vector arithmetic and comparison with one-to-one, many-to-one and one-to-many
// matching, step by step as Prometheus defines it but over all steps of a series at once.

import type { BinaryExpr, VectorMatching } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { applyOp, changesMetricSchema, compareOp, COMPARISON_OPS, opCode } from './binary-ops.ts';
import { QueryError } from './errors.ts';
import { dropLabels, dropMetricName, formatLabels, keepLabels, labelsKey, setLabel, signatureKey } from './labels.ts';
import { newSeries, type Grid, type Series } from './types.ts';

const DEFAULT_MATCHING: VectorMatching = { card: 'one-to-one', on: false, labels: [], include: [] };

/**
 * resultLabels: the output labels of a matched pair (many side, one side); names is
 * new Set(m.labels), made once per operation.
 */
function resultLabels(many: Labels, one: Labels, e: BinaryExpr, m: VectorMatching, names: ReadonlySet<string>): Labels {
  let ls = changesMetricSchema(e.op) ? dropMetricName(many) : many;
  if (m.card === 'one-to-one') ls = m.on ? keepLabels(ls, names) : names.size === 0 ? ls : dropLabels(ls, names);
  for (const name of m.include) ls = setLabel(ls, name, one.find((l) => l.name === name)?.value ?? '');
  return ls;
}

function anyPresent(series: readonly Series[], n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (const s of series) {
    const p = s.present;
    for (let i = 0; i < n; i++) out[i] = out[i]! | p[i]!;
  }
  return out;
}

function groupBySignature(series: readonly Series[], m: VectorMatching): { sigs: string[]; groups: Map<string, number[]> } {
  const names = new Set(m.labels);
  const sigs = series.map((s) => signatureKey(s.labels, m.on, names));
  const groups = new Map<string, number[]>();
  sigs.forEach((sig, i) => {
    const g = groups.get(sig);
    if (g === undefined) groups.set(sig, [i]);
    else g.push(i);
  });
  return { sigs, groups };
}

// checkOneSide: the "one" side may hold a single series per match group at any step where
// the other side has data (else the matching would be many-to-many).
function checkOneSide(one: readonly Series[], groups: Map<string, number[]>, anyMany: Uint8Array, swapped: boolean): void {
  for (const idxs of groups.values()) {
    if (idxs.length < 2) continue;
    for (let i = 0; i < anyMany.length; i++) {
      if (anyMany[i] === 0) continue;
      const at = idxs.filter((k) => one[k]!.present[i] === 1);
      if (at.length > 1) {
        throw new QueryError(
          `found duplicate series for the match group on the ${swapped ? 'left' : 'right'} hand-side of the operation: ` +
            `[${formatLabels(one[at[0]!]!.labels)}, ${formatLabels(one[at[1]!]!.labels)}];` +
            'many-to-many matching not allowed: matching labels must be unique on one side',
        );
      }
    }
  }
}

/** matchLabels: the labels a matching signature is made of (what a filled operand carries). */
function matchLabels(ls: Labels, m: VectorMatching): Labels {
  const names = new Set(m.labels);
  return m.on ? keepLabels(ls, names) : dropLabels(ls, new Set([...names, '__name__']));
}

/**
 * vectorMatch evaluates `lhs op rhs` for two instant vectors (not set operators). With fill
 * modifiers a missing operand takes the fill value (sides as after group_right's swap) and
 * carries the labels of the matching signature.
 */
export function vectorMatch(e: BinaryExpr, lhs: readonly Series[], rhs: readonly Series[], grid: Grid): Series[] {
  const m = e.matching ?? DEFAULT_MATCHING;
  const swapped = m.card === 'one-to-many';
  const [many, one] = swapped ? [rhs, lhs] : [lhs, rhs];
  const fillMany = e.fill?.left ?? null;
  const fillOne = e.fill?.right ?? null;
  const n = grid.n;
  const oneGroups = groupBySignature(one, m).groups;
  const manySide = groupBySignature(many, m);
  checkOneSide(one, oneGroups, anyPresent(many, n), swapped);
  const isCmp = COMPARISON_OPS.has(e.op);
  const code = opCode(e.op);
  const names = new Set(m.labels);
  const out = new Map<string, Series>();
  // apply computes one point; manyV/oneV are the post-swap operands.
  const apply = (target: () => Series, i: number, manyV: number, oneV: number): void => {
    const l = swapped ? oneV : manyV;
    const r = swapped ? manyV : oneV;
    let v: number;
    if (isCmp) {
      const keep = compareOp(code, l, r);
      if (!keep && !e.returnBool) return;
      v = e.returnBool ? (keep ? 1 : 0) : l;
    } else {
      v = applyOp(code, l, r);
    }
    const t = target();
    if (t.present[i] === 1) {
      throw new QueryError(m.card === 'one-to-one'
        ? 'vector cannot contain metrics with the same labelset'
        : 'multiple matches for labels: grouping labels must ensure unique matches');
    }
    t.values[i] = v;
    t.present[i] = 1;
  };
  // One-to-one: a second many-side series matching the same group at the same step is an error.
  const used = new Map<string, Uint8Array>();
  many.forEach((ms, mi) => {
    const sig = manySide.sigs[mi]!;
    const partners = oneGroups.get(sig) ?? [];
    if (partners.length === 0 && fillOne === null) return;
    const shared = m.card === 'one-to-one' && manySide.groups.get(sig)!.length > 1;
    let marks = shared ? used.get(sig) : undefined;
    if (shared && marks === undefined) used.set(sig, (marks = new Uint8Array(n)));
    const targets = new Map<number, Series>();
    const targetFor = (oi: number) => (): Series => {
      let t = targets.get(oi);
      if (t === undefined) {
        const oneLabels = oi < 0 ? matchLabels(ms.labels, m) : one[oi]!.labels;
        targets.set(oi, (t = outputSeries(out, resultLabels(ms.labels, oneLabels, e, m, names), n, e.returnBool)));
      }
      return t;
    };
    const mp = ms.present;
    const mv = ms.values;
    if (!isCmp && partners.length === 1 && marks === undefined && fillOne === null) {
      arithmeticPair(mp, mv, one[partners[0]!]!, swapped, code, targetFor(partners[0]!), m.card);
      return;
    }
    for (let i = 0; i < n; i++) {
      if (mp[i] === 0) continue;
      let oi: number | undefined;
      for (let p = 0; p < partners.length; p++) {
        if (one[partners[p]!]!.present[i] === 1) {
          oi = partners[p]!;
          break;
        }
      }
      if (oi === undefined && fillOne === null) continue;
      if (marks !== undefined) {
        if (marks[i] === 1) throw new QueryError('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)');
        marks[i] = 1;
      }
      apply(targetFor(oi ?? -1), i, mv[i]!, oi === undefined ? fillOne! : one[oi]!.values[i]!);
    }
  });
  if (fillMany !== null) fillManySide(one, many, m, manySide.sigs, n, (os, i, labels) => apply(() => outputSeries(out, labels, n, e.returnBool), i, fillMany, os.values[i]!), e);
  return [...out.values()];
}

/**
 * arithmeticPair is the per-step loop of vectorMatch for arithmetic between a many-side series
 * and its only partner, without fill values or shared groups (what `a / b` mostly is): the same
 * points and errors as the general loop, without a closure call per point.
 */
function arithmeticPair(mp: Uint8Array, mv: Float64Array, os: Series, swapped: boolean, code: number, target: () => Series, card: VectorMatching['card']): void {
  const op = os.present;
  const ov = os.values;
  let t: Series | undefined;
  for (let i = 0; i < mp.length; i++) {
    if (mp[i] === 0 || op[i] !== 1) continue;
    const v = swapped ? applyOp(code, ov[i]!, mv[i]!) : applyOp(code, mv[i]!, ov[i]!);
    t ??= target();
    if (t.present[i] === 1) {
      throw new QueryError(card === 'one-to-one'
        ? 'vector cannot contain metrics with the same labelset'
        : 'multiple matches for labels: grouping labels must ensure unique matches');
    }
    t.values[i] = v;
    t.present[i] = 1;
  }
}

// fillManySide: one-side points whose group has no many-side point at that step pair with
// the fill value, under the labels of their matching signature.
function fillManySide(
  one: readonly Series[], many: readonly Series[], m: VectorMatching, manySigs: string[], n: number,
  emit: (os: Series, i: number, labels: Labels) => void, e: BinaryExpr,
): void {
  const covered = new Map<string, Uint8Array>();
  many.forEach((ms, k) => {
    let u = covered.get(manySigs[k]!);
    if (u === undefined) covered.set(manySigs[k]!, (u = new Uint8Array(n)));
    for (let i = 0; i < n; i++) u[i] = u[i]! | ms.present[i]!;
  });
  const names = new Set(m.labels);
  for (const os of one) {
    const u = covered.get(signatureKey(os.labels, m.on, names));
    const filled = matchLabels(os.labels, m);
    const labels = resultLabels(filled, os.labels, e, m, names);
    for (let i = 0; i < n; i++) if (os.present[i] === 1 && (u === undefined || u[i] === 0)) emit(os, i, labels);
  }
}

function outputSeries(out: Map<string, Series>, labels: Labels, n: number, dropName: boolean): Series {
  const key = labelsKey(labels);
  let s = out.get(key);
  if (s === undefined) {
    s = newSeries(labels, n, dropName);
    out.set(key, s);
  }
  return s;
}
