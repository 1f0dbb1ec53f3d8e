import { type Expr, type LabelMatcher as AstMatcher, matchesEmpty, parse, type VectorSelector } from '../../lib/promql/index.ts';
import type { LabelMatcher, MatchType } from '../../lib/storageapi/index.ts';
import { badData } from './errors.ts';
import type { RequestParams } from './request-params.ts';

/**
 * ExtraFilters come from `extra_label=name=value` (AND-ed into every selector) and
 * `extra_filters[]=<selector>` (OR-ed alternatives), as DECISIONS.md describes. The gateway and the
 * auth proxy use them to confine a tenant's reads.
 */
export interface ExtraFilters {
  readonly labels: readonly LabelMatcher[];
  /** alternatives: each is one AND-ed set; empty means no extra_filters were given. */
  readonly alternatives: readonly (readonly LabelMatcher[])[];
}

export const NO_EXTRA_FILTERS: ExtraFilters = { labels: [], alternatives: [] };

/** toStorageMatchers converts the AST's matchers (plus the selector's name) into storageapi matchers. */
export function toStorageMatchers(name: string, set: readonly AstMatcher[]): LabelMatcher[] {
  const out: LabelMatcher[] = name === '' ? [] : [{ name: '__name__', type: '=', value: name }];
  for (const m of set) out.push({ name: m.name, type: m.op as MatchType, value: m.value });
  return out;
}

/** selectorMatcherSets returns the OR-ed matcher sets of one selector. */
export function selectorMatcherSets(sel: VectorSelector): LabelMatcher[][] {
  return sel.matcherSets.map((set) => toStorageMatchers(sel.name, set));
}

/** parseSelectorArg parses one series selector argument (`match[]`, `extra_filters[]`) into OR-ed matcher sets. */
export function parseSelectorArg(text: string, param: string): LabelMatcher[][] {
  let e: Expr;
  try {
    e = parse(text);
  } catch (err) {
    throw badData(param, err);
  }
  if (e.type !== 'VectorSelector') throw badData(param, new Error(`${JSON.stringify(text)} is not a series selector`));
  if (e.offset !== null || e.at !== null) throw badData(param, new Error(`series selector ${JSON.stringify(text)} must not have offset or @`));
  const sets = selectorMatcherSets(e);
  if (sets.some((s) => s.length === 0 || s.every((m) => matchesEmpty(toAst(m))))) {
    throw badData(param, new Error(`series selector ${JSON.stringify(text)} must contain at least one label matcher that does not match the empty value`));
  }
  return sets;
}

/** parseExtraFilters reads extra_label and extra_filters[] (also extra_filters). */
export function parseExtraFilters(params: RequestParams): ExtraFilters {
  const labels: LabelMatcher[] = params.getAll('extra_label').map((v) => {
    const eq = v.indexOf('=');
    if (eq <= 0) throw badData('extra_label', new Error(`${JSON.stringify(v)} must look like name=value`));
    return { name: v.slice(0, eq), type: '=' as const, value: v.slice(eq + 1) };
  });
  const alternatives = params.getAll('extra_filters[]', 'extra_filters').flatMap((v) => parseSelectorArg(v, 'extra_filters[]'));
  return { labels, alternatives };
}

/** applyExtraFilters AND-s the extra labels into every set and crosses the sets with the alternatives. */
export function applyExtraFilters(sets: readonly (readonly LabelMatcher[])[], f: ExtraFilters): LabelMatcher[][] {
  const withLabels = sets.map((s) => [...s, ...f.labels]);
  if (f.alternatives.length === 0) return withLabels;
  return withLabels.flatMap((s) => f.alternatives.map((alt) => [...s, ...alt]));
}

/** filtersToMatcherSets is the matcher set list for routes without match[] (labels, label values): the filters alone. */
export function filtersToMatcherSets(f: ExtraFilters): LabelMatcher[][] {
  if (f.labels.length === 0 && f.alternatives.length === 0) return [];
  return applyExtraFilters([[]], f);
}

/** applyExtraFiltersToExpr rewrites every selector of a query so it only sees series the filters allow. */
export function applyExtraFiltersToExpr(e: Expr, f: ExtraFilters): Expr {
  if (f.labels.length === 0 && f.alternatives.length === 0) return e;
  const extra = (set: readonly AstMatcher[]): AstMatcher[][] => {
    const base = [...set, ...f.labels.map(toAst)];
    return f.alternatives.length === 0 ? [base] : f.alternatives.map((alt) => [...base, ...alt.map(toAst)]);
  };
  return mapSelectors(e, (sel) => ({ ...sel, matcherSets: sel.matcherSets.flatMap(extra) }));
}

function toAst(m: LabelMatcher): AstMatcher {
  return { name: m.name, op: m.type, value: m.value };
}

/** mapSelectors rebuilds an expression with every VectorSelector replaced by fn(selector). */
export function mapSelectors(e: Expr, fn: (s: VectorSelector) => VectorSelector): Expr {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const n = node as { type?: string };
    if (n.type === 'VectorSelector') return fn(node as VectorSelector);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v);
    return out;
  };
  return walk(e) as Expr;
}
