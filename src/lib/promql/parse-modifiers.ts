// Selector construction and modifiers: validity of matcher sets, template selector extension,
// `offset`, `@`, the anchored/smoothed range modifiers, and binary-operator matching and fill.

import type { AtModifier, DurationExpr, Expr, FillValues, LabelMatcher, MatchCardinality, MatrixSelector, VectorMatching, VectorSelector } from './ast.ts';
import type { Token } from './lexer.ts';
import { matchesEmpty, parseLabelList } from './parse-selector.ts';
import type { TokenStream } from './token-stream.ts';

export function finishSelector(ts: TokenStream, at: Token, name: string, matcherSets: LabelMatcher[][]): VectorSelector {
  for (const set of matcherSets) {
    if (name !== '') {
      const dup = set.find((m) => m.name === '__name__');
      if (dup !== undefined) throw ts.fail(`metric name must not be set twice: "${name}" or "${dup.value}"`, at);
    } else if (set.every(matchesEmpty)) {
      throw ts.fail('vector selector must contain at least one non-empty matcher', at);
    }
  }
  return { type: 'VectorSelector', name, matcherSets, offset: null, at: null, extended: null };
}

// extendSelector merges `tpl{extra}` where tpl is a selector template: every OR set of the
// template is combined with every set written in the braces.
export function extendSelector(ts: TokenStream, at: Token, base: VectorSelector, extra: { name: string; matcherSets: LabelMatcher[][] }): VectorSelector {
  if (extra.name !== '' && base.name !== '') throw ts.fail(`metric name must not be set twice: "${base.name}" or "${extra.name}"`, at);
  const sets: LabelMatcher[][] = [];
  for (const a of base.matcherSets) for (const b of extra.matcherSets) sets.push([...a, ...b]);
  const sel = finishSelector(ts, at, base.name || extra.name, sets);
  return { ...sel, offset: base.offset, at: base.at, extended: base.extended };
}

export function parseAt(ts: TokenStream): AtModifier {
  for (const [word, type] of [['start', 'AtStart'], ['end', 'AtEnd']] as const) {
    if (ts.isWord(word) && ts.isPunct('(', 1) && ts.isPunct(')', 2)) {
      ts.next(); ts.next(); ts.next();
      return { type };
    }
  }
  const sign = ts.isPunct('-') ? -1 : 1;
  if (ts.isPunct('-') || ts.isPunct('+')) ts.next();
  const t = ts.peek();
  if ((t.kind !== 'number' && t.kind !== 'duration') || t.steps) throw ts.unexpected('timestamp, start() or end() after @');
  if (!Number.isFinite(t.num)) throw ts.fail('timestamp out of bounds for @ modifier', t);
  ts.next();
  return { type: 'AtTime', seconds: sign * t.num };
}

export function withExtension(ts: TokenStream, tok: Token, e: VectorSelector | MatrixSelector): Expr {
  const ext = tok.text.toLowerCase() as 'anchored' | 'smoothed';
  const sel = e.type === 'VectorSelector' ? e : e.selector;
  if (sel.extended !== null) throw ts.fail(`${ext} may not be combined with ${sel.extended}`, tok);
  if (ext === 'anchored' && e.type === 'VectorSelector') throw ts.fail('anchored is only allowed on range selectors', tok);
  const extended = { ...sel, extended: ext };
  return e.type === 'VectorSelector' ? extended : { ...e, selector: extended };
}

type Modifier = { offset: DurationExpr } | { at: AtModifier };

export function withModifier(ts: TokenStream, tok: Token, e: Expr, paren: boolean, mod: Modifier): Expr {
  const isOffset = 'offset' in mod;
  const what = isOffset ? 'offset' : '@ <timestamp>';
  const apply = <T extends { offset: unknown; at: unknown }>(target: T): T => {
    if ((isOffset ? target.offset : target.at) !== null) throw ts.fail(`${what} may not be set multiple times`, tok);
    return isOffset ? { ...target, offset: mod.offset } : { ...target, at: mod.at };
  };
  if (!paren && e.type === 'VectorSelector') return apply(e);
  if (!paren && e.type === 'MatrixSelector') return { ...e, selector: apply(e.selector) };
  if (!paren && e.type === 'SubqueryExpr') return apply(e);
  throw ts.fail(`${what} modifier must be preceded by an instant vector selector or range vector selector or a subquery`, tok);
}


/** parseMatching reads `on(...)`/`ignoring(...)` and `group_left(...)`/`group_right(...)`. */
export function parseMatching(ts: TokenStream): VectorMatching | null {
  if (!((ts.isWord('on') || ts.isWord('ignoring')) && ts.isPunct('(', 1))) return null;
  const on = ts.next().text.toLowerCase() === 'on';
  const labels = parseLabelList(ts);
  let card: MatchCardinality = 'one-to-one';
  let include: string[] = [];
  if (ts.isWord('group_left') || ts.isWord('group_right')) {
    card = ts.next().text.toLowerCase() === 'group_left' ? 'many-to-one' : 'one-to-many';
    if (ts.isPunct('(')) include = parseLabelList(ts);
  }
  return { card, on, labels, include };
}

/** parseFill reads `fill(v)`, `fill_left(v)`, `fill_right(v)` (the latter two combinable). */
export function parseFill(ts: TokenStream): FillValues | null {
  let left: number | null = null;
  let right: number | null = null;
  for (;;) {
    const word = ['fill', 'fill_left', 'fill_right'].find((w) => ts.isWord(w) && ts.isPunct('(', 1));
    if (word === undefined) break;
    const at = ts.next();
    ts.next();
    const sign = ts.isPunct('-') ? -1 : 1;
    if (ts.isPunct('-') || ts.isPunct('+')) ts.next();
    const t = ts.peek();
    let v: number;
    if (t.kind === 'number') v = t.num;
    else if (t.kind === 'ident' && ['inf', 'nan'].includes(t.text.toLowerCase())) v = t.text.toLowerCase() === 'inf' ? Infinity : NaN;
    else throw ts.unexpected(`number in ${word}()`);
    ts.next();
    ts.expectPunct(')', `")" closing ${word}()`);
    if ((word !== 'fill_right' && left !== null) || (word !== 'fill_left' && right !== null)) throw ts.fail(`fill value given twice`, at);
    if (word !== 'fill_right') left = sign * v;
    if (word !== 'fill_left') right = sign * v;
  }
  return left === null && right === null ? null : { left, right };
}
