// Selector pieces: label names, `{...}` matcher lists (with MetricsQL `or` sets and
// Prometheus 3 quoted names), and `by (...)` label lists.

import type { LabelMatcher, MatchOp } from './ast.ts';
import { compileAnchored, RegexpSyntaxError } from '../regexp/index.ts';
import { isValidUtf8 } from './strings.ts';
import type { TokenStream } from './token-stream.ts';

const MATCH_OPS = new Set<string>(['=', '!=', '=~', '!~']);
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** isPlainLabelName reports whether a label name can be written without quotes. */
export const isPlainLabelName = (s: string): boolean => LABEL_NAME_RE.test(s);

/** parseLabelName reads an identifier or (Prometheus 3) a quoted UTF-8 label name. */
export function parseLabelName(ts: TokenStream): string {
  const t = ts.peek();
  if (t.kind === 'ident' && isPlainLabelName(t.text)) {
    ts.next();
    return t.text;
  }
  if (t.kind === 'string') {
    if (t.str === '' || !isValidUtf8(t.str)) throw ts.fail(`invalid label name ${JSON.stringify(t.text)}`, t);
    ts.next();
    return t.str;
  }
  throw ts.unexpected('label name');
}

/** parseLabelList reads `(a, b, "c.d")` (trailing comma allowed) as used by by/on/group_x. */
export function parseLabelList(ts: TokenStream): string[] {
  ts.expectPunct('(', '"(" before label list');
  const out: string[] = [];
  while (!ts.acceptPunct(')')) {
    out.push(parseLabelName(ts));
    if (!ts.isPunct(')')) ts.expectPunct(',', '"," or ")" in label list');
  }
  return out;
}

/**
 * FilterTemplateResolver returns the matchers of a WITH template used as a filter list
 * (`m{tpl}`), or null when `name` is no such template.
 */
export type FilterTemplateResolver = (name: string) => readonly LabelMatcher[] | null;

/** BraceContents: the matcher sets inside `{...}` and a bare quoted metric name, if any. */
export interface BraceContents {
  readonly name: string;
  readonly matcherSets: LabelMatcher[][];
}

/** parseBraces reads `{...}` starting at the `{` token. */
export function parseBraces(ts: TokenStream, resolve: FilterTemplateResolver): BraceContents {
  ts.expectPunct('{');
  let name = '';
  const sets: LabelMatcher[][] = [[]];
  while (!ts.acceptPunct('}')) {
    const t = ts.peek();
    const after = ts.peek(1);
    const bareEnd = after.kind === 'punct' ? after.text === ',' || after.text === '}' : after.kind === 'ident' && after.text.toLowerCase() === 'or';
    if (t.kind === 'string' && bareEnd) {
      // Prometheus 3: `{"metric.name", a="b"}`.
      if (name !== '') throw ts.fail('metric name must not be set twice', t);
      if (!isValidUtf8(t.str)) throw ts.fail(`invalid metric name ${JSON.stringify(t.text)}`, t);
      name = t.str;
      ts.next();
    } else if (t.kind === 'ident' && bareEnd && resolve(t.text) !== null) {
      sets[sets.length - 1]!.push(...resolve(t.text)!);
      ts.next();
    } else {
      sets[sets.length - 1]!.push(parseMatcher(ts));
    }
    if (ts.isWord('or')) {
      ts.next();
      sets.push([]);
      continue;
    }
    if (!ts.isPunct('}')) ts.expectPunct(',', '"," or "}" in label matchers');
  }
  if (sets.length > 1 && sets.some((s) => s.length === 0)) throw ts.fail('empty label matcher set around "or"');
  return { name, matcherSets: sets };
}

function parseMatcher(ts: TokenStream): LabelMatcher {
  const name = parseLabelName(ts);
  const opTok = ts.peek();
  if (opTok.kind !== 'punct' || !MATCH_OPS.has(opTok.text)) throw ts.unexpected('label matching operator');
  ts.next();
  const valTok = ts.peek();
  if (valTok.kind !== 'string') throw ts.unexpected('label value as a quoted string');
  ts.next();
  const op = opTok.text as MatchOp;
  if (op === '=~' || op === '!~') {
    try {
      compileAnchored(valTok.str);
    } catch (err) {
      if (!(err instanceof RegexpSyntaxError)) throw err;
      throw ts.fail(`invalid regular expression ${JSON.stringify(valTok.str)}: ${err.message}`, valTok);
    }
  }
  return { name, op, value: valTok.str };
}

/** matchesEmpty reports whether a matcher accepts the empty value (a missing label). */
export function matchesEmpty(m: LabelMatcher): boolean {
  switch (m.op) {
    case '=': return m.value === '';
    case '!=': return m.value !== '';
    case '=~': return compileAnchored(m.value).test('');
    case '!~': return !compileAnchored(m.value).test('');
  }
}
