// Vector-to-vector arithmetic and comparison with one-to-one, many-to-one and one-to-many
// matching, step by step as Prometheus defines it but over all steps of a series at once.

import type { BinaryExpr, VectorMatching } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { arithmetic, changesMetricSchema, compare, COMPARISON_OPS } from './binary-ops.ts';
import { QueryError } from './errors.ts';
import { dropLabels, formatLabels, keepLabels, labelsKey, METADATA_LABELS, setLabel, signatureKey } from './labels.ts';
import { newSeries, type Grid, type Series } from './types.ts';

const DEFAULT_MATCHING: VectorMatching = { card: 'one-to-one', on: false, labels: [], include: [] };

/** resultLabels: the output labels of a matched pair (many side, one side). */
function resultLabels(many: Labels, one: Labels, e: BinaryExpr, m: VectorMatching): Labels {
  let ls = changesMetricSchema(e.op) ? dropLabels(many, METADATA_LABELS) : many;
  if (m.card === 'one-to-one') ls = m.on ? keepLabels(ls, new Set(m.labels)) : dropLabels(ls, new Set(m.labels));
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

/** vectorMatch evaluates `lhs op rhs` for two instant vectors (not set operators). */
export function vectorMatch(e: BinaryExpr, lhs: readonly Series[], rhs: readonly Series[], grid: Grid): Series[] {
  const m = e.matching ?? DEFAULT_MATCHING;
  const swapped = m.card === 'one-to-many';
  const [many, one] = swapped ? [rhs, lhs] : [lhs, rhs];
  const n = grid.n;
  const oneGroups = groupBySignature(one, m).groups;
  const manySide = groupBySignature(many, m);
  checkOneSide(one, oneGroups, anyPresent(many, n), swapped);
  const isCmp = COMPARISON_OPS.has(e.op);
  const out = new Map<string, Series>();
  // One-to-one: a second many-side series matching the same group at the same step is an error.
  const used = new Map<string, Uint8Array>();
  many.forEach((ms, mi) => {
    const sig = manySide.sigs[mi]!;
    const partners = oneGroups.get(sig);
    if (partners === undefined) return;
    const shared = m.card === 'one-to-one' && manySide.groups.get(sig)!.length > 1;
    let marks = shared ? used.get(sig) : undefined;
    if (shared && marks === undefined) used.set(sig, (marks = new Uint8Array(n)));
    const mp = ms.present;
    const mv = ms.values;
    for (const oi of partners) {
      const os = one[oi]!;
      const op = os.present;
      const ov = os.values;
      let target: Series | undefined;
      for (let i = 0; i < n; i++) {
        if (mp[i] === 0 || op[i] === 0) continue;
        if (marks !== undefined) {
          if (marks[i] === 1) throw new QueryError('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)');
          marks[i] = 1;
        }
        const l = swapped ? ov[i]! : mv[i]!;
        const r = swapped ? mv[i]! : ov[i]!;
        let v: number;
        if (isCmp) {
          const keep = compare(e.op, l, r);
          if (!keep && !e.returnBool) continue;
          v = e.returnBool ? (keep ? 1 : 0) : l;
        } else {
          v = arithmetic(e.op, l, r);
        }
        target ??= outputSeries(out, resultLabels(ms.labels, os.labels, e, m), n, e.returnBool);
        if (target.present[i] === 1) {
          throw new QueryError(m.card === 'one-to-one'
            ? 'vector cannot contain metrics with the same labelset'
            : 'multiple matches for labels: grouping labels must ensure unique matches');
        }
        target.values[i] = v;
        target.present[i] = 1;
      }
    }
  });
  return [...out.values()];
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
