// info(v, {data-label selector}): enrich series with the data labels of matching info series
// (Prometheus 3, experimental). Info series are found by the identifying labels instance and
// job; without a selector naming them, target_info is the info metric.

import type { Expr, LabelMatcher, VectorSelector } from '../promql/index.ts';
import { children, matchesEmpty } from '../promql/index.ts';
import { compileMatcher, labelsMatch, type Labels } from '../storageapi/index.ts';
import { quoteMeta } from '../regexp/index.ts';
import { QueryError } from './errors.ts';
import { getLabel, labelsKey, METRIC_NAME, setLabel } from './labels.ts';
import { atMs, evalVectorSelector } from './selector.ts';
import { vectorArg, type TransformCall } from './transform-call.ts';
import { newSeries, type Series, type Value } from './types.ts';

const IDENTIFYING = ['instance', 'job'] as const;

const asStorage = (m: LabelMatcher): import('../storageapi/index.ts').LabelMatcher => ({ name: m.name, type: m.op, value: m.value });

/** infoSignature: the info metric name plus the identifying labels a series carries. */
function infoSignature(name: string, ls: Labels): string {
  return `${name}\xff${IDENTIFYING.map((l) => getLabel(ls, l)).join('\xff')}`;
}

/**
 * referenceTime: info series are read at the time the base samples were read — the evaluation
 * time shifted by the offsets and pinned by the @ modifiers on the way from the first argument
 * to its first selector (subqueries included). Returns [offset ms, pinned time ms or null].
 */
function referenceTime(c: TransformCall): [number, number | null] {
  let offset = 0;
  let pinned: number | null = null;
  const visit = (e: Expr): boolean => {
    if (e.type === 'VectorSelector' || e.type === 'SubqueryExpr') {
      const off = e.offset === null ? 0 : c.st.durationMs(e.offset);
      if (e.at !== null) [pinned, offset] = [atMs(e.at, c.st), off];
      else offset += off;
      if (e.type === 'VectorSelector') return true;
    }
    if (e.type === 'MatrixSelector') return visit(e.selector);
    return children(e).some(visit);
  };
  visit(c.node.args[0]!);
  return [offset, pinned];
}

/** info implements the info() function; its second argument is read from the AST. */
export async function info(c: TransformCall): Promise<Value> {
  const base = vectorArg(c, 0);
  const selArg = c.node.args[1];
  const matchers = selArg?.type === 'VectorSelector' ? [...(selArg.name === '' ? [] : [{ name: METRIC_NAME, op: '=' as const, value: selArg.name }]), ...selArg.matcherSets[0]!] : [];
  const nameMatchers = selArg === undefined ? [{ name: METRIC_NAME, op: '=' as const, value: 'target_info' }] : matchers.filter((m) => m.name === METRIC_NAME);
  const dataMatchers = matchers.filter((m) => m.name !== METRIC_NAME);
  // Series that are themselves info series (their name matches the positive name matchers and
  // passes the negative ones) are returned as they are.
  const positive = nameMatchers.some((m) => m.op === '=' || m.op === '=~');
  const byName = nameMatchers.map((m) => compileMatcher(asStorage(m)));
  const ignored = base.map((s) => positive && labelsMatch(s.labels, byName));
  const idValues = new Map<string, Set<string>>();
  base.forEach((s, k) => {
    if (ignored[k]) return;
    for (const l of IDENTIFYING) {
      const v = getLabel(s.labels, l);
      if (v !== '') idValues.set(l, (idValues.get(l) ?? new Set()).add(v));
    }
  });
  const infos = idValues.size === 0 ? [] : await fetchInfo(c, matchers, idValues);
  return { type: 'vector', series: combine(c, base, ignored, infos, dataMatchers) };
}

async function fetchInfo(c: TransformCall, matchers: LabelMatcher[], idValues: Map<string, Set<string>>): Promise<Series[]> {
  const idMatchers: LabelMatcher[] = [...idValues].map(([name, vals]) => ({ name, op: '=~', value: [...vals].map(quoteMeta).join('|') }));
  // Info metrics: target_info by default; with only negative name matchers, any *_info metric
  // they let through; with a positive name matcher, exactly what the matchers select.
  const names = matchers.filter((m) => m.name === METRIC_NAME);
  const positive = names.some((m) => m.op === '=' || m.op === '=~');
  const base: LabelMatcher[] = positive ? [] : names.length > 0 ? [{ name: METRIC_NAME, op: '=~', value: '.+_info' }] : [{ name: METRIC_NAME, op: '=', value: 'target_info' }];
  const all = [...base, ...idMatchers, ...matchers];
  const [offset, pinned] = referenceTime(c);
  const sel: VectorSelector = {
    type: 'VectorSelector', name: '', matcherSets: [all], extended: null,
    offset: { type: 'DurationLiteral', value: offset / 1000, unit: 's' },
    at: pinned === null ? null : { type: 'AtTime', seconds: pinned / 1000 },
  };
  return evalVectorSelector(sel, c.grid, c.st, true);
}

function combine(c: TransformCall, base: readonly Series[], ignored: boolean[], infos: readonly Series[], dataMatchers: LabelMatcher[]): Series[] {
  const n = c.grid.n;
  const infoNames = [...new Set(infos.map((s) => getLabel(s.labels, METRIC_NAME)))];
  const dataNames = new Set(dataMatchers.map((m) => m.name));
  const dropWhenUnmatched = dataMatchers.some((m) => !matchesEmpty(m));
  const out = new Map<string, Series>();
  const emit = (labels: Labels, s: Series, i: number): void => {
    const key = labelsKey(labels);
    let o = out.get(key);
    if (o === undefined) out.set(key, (o = newSeries(labels, n, s.dropName)));
    if (o.present[i] === 1) throw new QueryError('vector cannot contain metrics with the same labelset');
    o.values[i] = s.values[i]!;
    o.present[i] = 1;
  };
  for (let i = 0; i < n; i++) {
    const bySig = pickInfo(infos, i);
    base.forEach((s, k) => {
      if (s.present[i] === 0) return;
      if (ignored[k]) return emit(s.labels, s, i);
      let added: Labels = [];
      let matched = 0;
      for (const name of infoNames) {
        const is = bySig.get(infoSignature(name, s.labels));
        if (is === undefined) continue;
        matched++;
        for (const l of is.labels) {
          if (l.name === METRIC_NAME || (dataNames.size > 0 && !dataNames.has(l.name))) continue;
          const prev = getLabel(added, l.name);
          if (prev !== '' && prev !== l.value) throw new QueryError(`conflicting label: ${l.name}`);
          if (getLabel(s.labels, l.name) === '') added = setLabel(added, l.name, l.value);
        }
      }
      if (matched === 0 && dropWhenUnmatched) return;
      emit(added.reduce((ls, l) => setLabel(ls, l.name, l.value), s.labels), s, i);
    });
  }
  return [...out.values()];
}

// pickInfo maps signatures to the info series present at step i; the newest sample wins.
function pickInfo(infos: readonly Series[], i: number): Map<string, Series> {
  const bySig = new Map<string, Series>();
  for (const s of infos) {
    if (s.present[i] === 0) continue;
    const sig = infoSignature(getLabel(s.labels, METRIC_NAME), s.labels);
    const prev = bySig.get(sig);
    const t = s.timestamps?.[i] ?? 0;
    const pt = prev?.timestamps?.[i] ?? 0;
    if (prev !== undefined && pt === t) throw new QueryError(`found duplicate series for info metric: ${getLabel(s.labels, METRIC_NAME)} @ ${t}`);
    if (prev === undefined || t > pt) bySig.set(sig, s);
  }
  return bySig;
}
