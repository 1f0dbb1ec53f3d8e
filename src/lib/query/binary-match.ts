// Vector-to-vector arithmetic and comparison with one-to-one, many-to-one and one-to-many
// matching, step by step as Prometheus defines it but over all steps of a series at once.

import type { BinaryExpr, VectorMatching } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { applyOp, changesMetricSchema, compareOp, COMPARISON_OPS, opCode } from './binary-ops.ts';
import { QueryError } from './errors.ts';
import { ALL_LABELS, LabelSetIndex, signatureFilter } from './label-set-index.ts';
import { dropLabels, dropMetricName, formatLabels, keepLabels, setLabel } from './labels.ts';
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

/**
 * SignatureGroups: the series of one side grouped by matching signature. index numbers the
 * signatures, of[i] is series i's group, groups[g] its series, hashes[i] its signature's hash.
 */
interface SignatureGroups {
  readonly index: LabelSetIndex;
  readonly of: Int32Array;
  readonly hashes: Int32Array;
  readonly groups: number[][];
}

function groupBySignature(series: readonly Series[], m: VectorMatching): SignatureGroups {
  const index = new LabelSetIndex(signatureFilter(m));
  const of = new Int32Array(series.length);
  const hashes = new Int32Array(series.length);
  const groups: number[][] = [];
  for (let i = 0; i < series.length; i++) {
    const ls = series[i]!.labels;
    const h = (hashes[i] = index.hash(ls));
    const g = (of[i] = index.add(ls, h));
    if (g === groups.length) groups.push([i]);
    else groups[g]!.push(i);
  }
  return { index, of, hashes, groups };
}

// checkOneSide: the "one" side may hold a single series per match group at any step where
// the other side has data (else the matching would be many-to-many).
function checkOneSide(one: readonly Series[], groups: readonly number[][], anyMany: Uint8Array, swapped: boolean): void {
  for (const idxs of groups) {
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
  const oneSide = groupBySignature(one, m);
  const manySide = groupBySignature(many, m);
  checkOneSide(one, oneSide.groups, anyPresent(many, n), swapped);
  const isCmp = COMPARISON_OPS.has(e.op);
  const code = opCode(e.op);
  const names = new Set(m.labels);
  const out = new OutputSeries(n, e.returnBool);
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
  // target is the output series of many-side series ms paired with one-side series oi (-1: the fill value).
  const target = (ms: Series, oi: number): Series =>
    out.get(resultLabels(ms.labels, oi < 0 ? matchLabels(ms.labels, m) : one[oi]!.labels, e, m, names));
  // One-to-one: a second many-side series matching the same group at the same step is an error.
  const used: (Uint8Array | undefined)[] = [];
  for (let mi = 0; mi < many.length; mi++) {
    const ms = many[mi]!;
    const og = oneSide.index.find(ms.labels, manySide.hashes[mi]!);
    const partners = og < 0 ? NO_PARTNERS : oneSide.groups[og]!;
    if (partners.length === 0 && fillOne === null) continue;
    const mg = manySide.of[mi]!;
    const shared = m.card === 'one-to-one' && manySide.groups[mg]!.length > 1;
    let marks = shared ? used[mg] : undefined;
    if (shared && marks === undefined) used[mg] = marks = new Uint8Array(n);
    const mp = ms.present;
    const mv = ms.values;
    if (!isCmp && partners.length === 1 && marks === undefined && fillOne === null) {
      arithmeticPair(ms, partners[0]!, one[partners[0]!]!, swapped, code, target, m.card);
      continue;
    }
    const targets = new Map<number, Series>();
    const targetFor = (oi: number) => (): Series => {
      let t = targets.get(oi);
      if (t === undefined) targets.set(oi, (t = target(ms, oi)));
      return t;
    };
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
  }
  if (fillMany !== null) fillManySide(one, many, m, manySide, n, (os, i, labels) => apply(() => out.get(labels), i, fillMany, os.values[i]!), e);
  return out.series;
}

const NO_PARTNERS: readonly number[] = [];

/**
 * arithmeticPair is the per-step loop of vectorMatch for arithmetic between a many-side series
 * and its only partner, without fill values or shared groups (what `a / b` mostly is): the same
 * points and errors as the general loop, without a closure call per point.
 */
function arithmeticPair(
  ms: Series, oi: number, os: Series, swapped: boolean, code: number, target: (ms: Series, oi: number) => Series, card: VectorMatching['card'],
): void {
  const mp = ms.present;
  const mv = ms.values;
  const op = os.present;
  const ov = os.values;
  let t: Series | undefined;
  for (let i = 0; i < mp.length; i++) {
    if (mp[i] === 0 || op[i] !== 1) continue;
    const v = swapped ? applyOp(code, ov[i]!, mv[i]!) : applyOp(code, mv[i]!, ov[i]!);
    t ??= target(ms, oi);
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
  one: readonly Series[], many: readonly Series[], m: VectorMatching, manySide: SignatureGroups, n: number,
  emit: (os: Series, i: number, labels: Labels) => void, e: BinaryExpr,
): void {
  const covered: Uint8Array[] = [];
  many.forEach((ms, k) => {
    const g = manySide.of[k]!;
    const u = (covered[g] ??= new Uint8Array(n));
    for (let i = 0; i < n; i++) u[i] = u[i]! | ms.present[i]!;
  });
  const names = new Set(m.labels);
  for (const os of one) {
    const g = manySide.index.find(os.labels);
    const u = g < 0 ? undefined : covered[g];
    const filled = matchLabels(os.labels, m);
    const labels = resultLabels(filled, os.labels, e, m, names);
    for (let i = 0; i < n; i++) if (os.present[i] === 1 && (u === undefined || u[i] === 0)) emit(os, i, labels);
  }
}

/** OutputSeries holds the result series of an operation, one per distinct label set, in order of creation. */
class OutputSeries {
  readonly series: Series[] = [];
  readonly #index = new LabelSetIndex(ALL_LABELS);
  readonly #n: number;
  readonly #dropName: boolean;

  constructor(n: number, dropName: boolean) {
    this.#n = n;
    this.#dropName = dropName;
  }

  /** get returns the series of labels, made (empty) on first use. */
  get(labels: Labels): Series {
    const k = this.#index.add(labels);
    if (k === this.series.length) this.series.push(newSeries(labels, this.#n, this.#dropName));
    return this.series[k]!;
  }
}
