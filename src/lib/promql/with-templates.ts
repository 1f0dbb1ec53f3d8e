// MetricsQL WITH templates: `WITH (x = expr, f(a, b) = expr) body`, expanded at parse time.
// Scoping is lexical: a template sees the templates defined before it (in its WITH and the
// enclosing ones), never itself, so templates cannot recurse. Expansion is still bounded
// (depth and count) so that a query cannot make the parser do unbounded work.

import type { Expr, LabelMatcher } from './ast.ts';
import type { Token } from './lexer.ts';
import type { TokenStream } from './token-stream.ts';

/** A value template holds its parsed body; a function template holds body tokens. */
export type Template =
  | { readonly kind: 'value'; readonly body: Expr }
  | { readonly kind: 'function'; readonly params: readonly string[]; readonly tokens: readonly Token[]; readonly scope: Scope };

/** Scope is one level of template definitions chained to the enclosing level. */
export class Scope {
  private readonly defs = new Map<string, Template>();
  private readonly parent: Scope | null;

  constructor(parent: Scope | null) {
    this.parent = parent;
  }

  lookup(name: string): Template | null {
    return this.defs.get(name) ?? this.parent?.lookup(name) ?? null;
  }

  /** snapshot copies this level's current definitions (later ones stay invisible to it). */
  snapshot(): Scope {
    const s = new Scope(this.parent);
    for (const [k, v] of this.defs) s.defs.set(k, v);
    return s;
  }

  /** define adds a template; false when this level already defines the name. */
  define(name: string, t: Template): boolean {
    if (this.defs.has(name)) return false;
    this.defs.set(name, t);
    return true;
  }

  /** filterMatchers returns the matchers of a template usable as `m{tpl}`, else null. */
  filterMatchers(name: string): readonly LabelMatcher[] | null {
    const t = this.lookup(name);
    if (t === null || t.kind !== 'value' || t.body.type !== 'VectorSelector') return null;
    const sel = t.body;
    if (sel.name !== '' || sel.matcherSets.length !== 1 || sel.offset !== null || sel.at !== null) return null;
    return sel.matcherSets[0]!;
  }
}

/** ExpansionBudget bounds template expansion across one parse. */
export class ExpansionBudget {
  static readonly MAX_DEPTH = 64;
  static readonly MAX_EXPANSIONS = 10_000;
  private expansions = 0;

  use(ts: TokenStream, at: Token, depth: number): void {
    if (depth > ExpansionBudget.MAX_DEPTH) throw ts.fail(`WITH template expansion is nested deeper than ${ExpansionBudget.MAX_DEPTH} levels`, at);
    if (++this.expansions > ExpansionBudget.MAX_EXPANSIONS) {
      throw ts.fail(`WITH templates expand more than ${ExpansionBudget.MAX_EXPANSIONS} times`, at);
    }
  }
}

/** SubParse parses a token list (ending with eof) completely in a scope. */
export type SubParse = (tokens: readonly Token[], scope: Scope) => Expr;

/**
 * parseWithDefinitions reads `WITH ( defs )` (the `with` token is current) and returns the
 * scope holding the definitions; the caller parses the body in it.
 */
export function parseWithDefinitions(ts: TokenStream, outer: Scope, subParse: SubParse): Scope {
  ts.next();
  ts.expectPunct('(', '"(" after WITH');
  const scope = new Scope(outer);
  while (!ts.acceptPunct(')')) {
    const nameTok = ts.peek();
    if (nameTok.kind !== 'ident') throw ts.unexpected('template name in WITH');
    ts.next();
    const params = ts.isPunct('(') ? parseParams(ts) : null;
    ts.expectPunct('=', `"=" after template name "${nameTok.text}"`);
    const tokens = bodyTokens(ts);
    if (tokens.length === 1) throw ts.unexpected(`body of template "${nameTok.text}"`);
    // A template's body sees a snapshot of the definitions before it, not itself.
    const defScope = scope.snapshot();
    const t: Template = params === null
      ? { kind: 'value', body: subParse(tokens, defScope) }
      : { kind: 'function', params, tokens, scope: defScope };
    if (!scope.define(nameTok.text, t)) throw ts.fail(`duplicate template name "${nameTok.text}" in WITH`, nameTok);
    if (!ts.isPunct(')')) ts.expectPunct(',', '"," or ")" after template body');
  }
  return scope;
}

function parseParams(ts: TokenStream): string[] {
  ts.expectPunct('(');
  const out: string[] = [];
  while (!ts.acceptPunct(')')) {
    const t = ts.peek();
    if (t.kind !== 'ident') throw ts.unexpected('template parameter name');
    if (out.includes(t.text)) throw ts.fail(`duplicate template parameter "${t.text}"`, t);
    out.push(t.text);
    ts.next();
    if (!ts.isPunct(')')) ts.expectPunct(',', '"," or ")" in template parameters');
  }
  return out;
}

// bodyTokens collects the tokens of one template body: up to a ',' or ')' at bracket depth 0.
function bodyTokens(ts: TokenStream): Token[] {
  const start = ts.position;
  let depth = 0;
  for (;;) {
    const t = ts.peek();
    if (t.kind === 'eof') throw ts.unexpected('")" closing WITH');
    if (t.kind === 'punct') {
      if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
      else if (t.text === ')' || t.text === ']' || t.text === '}') {
        if (depth === 0) break;
        depth--;
      } else if (t.text === ',' && depth === 0) break;
    }
    ts.next();
  }
  const toks = ts.slice(start, ts.position);
  const last = ts.peek();
  return [...toks, { ...last, kind: 'eof', text: '' }];
}

/** bindParams builds the scope in which a function template's body is parsed. */
export function bindParams(t: Extract<Template, { kind: 'function' }>, args: readonly Expr[]): Scope {
  const s = new Scope(t.scope);
  t.params.forEach((p, i) => s.define(p, { kind: 'value', body: args[i]! }));
  return s;
}
