// Parser: tokens → typed AST, by precedence climbing. Pure: no storage, no flags.

import type { AggregateExpr, BinaryOp, Expr, FunctionCall, Grouping, LabelMatcher, MatrixSelector, VectorSelector } from './ast.ts';
import { ParseError } from './errors.ts';
import { FUNCTIONS, isAggregation } from './functions.ts';
import { tokenize, type Token } from './lexer.ts';
import { parseDurationExpr, parseDurationPrimary } from './parse-duration.ts';
import { parseBraces, parseLabelList } from './parse-selector.ts';
import { TokenStream } from './token-stream.ts';
import { buildBinary, checkAggregation, checkArgs, isComparison, typeOf } from './typecheck.ts';
import { bindParams, ExpansionBudget, parseWithDefinitions, Scope, type Template } from './with-templates.ts';
import { extendSelector, finishSelector, parseAt, parseFill, parseMatching, withExtension, withModifier } from './parse-modifiers.ts';

/**
 * BINARY_PRECEDENCE: higher binds tighter. PromQL's order, with MetricsQL's `default` below
 * `if`/`ifnot` below `or`. `^` is right-associative; unary minus sits between `*` and `^`.
 */
export const BINARY_PRECEDENCE: Readonly<Record<BinaryOp, number>> = {
  default: 0, if: 1, ifnot: 1, or: 2, and: 3, unless: 3,
  '==': 4, '!=': 4, '<': 4, '>': 4, '<=': 4, '>=': 4,
  '+': 5, '-': 5, '*': 6, '/': 6, '%': 6, atan2: 6, '^': 8,
};
/** UNARY_PRECEDENCE: `-a * b` is `(-a) * b`, `-a ^ b` is `-(a ^ b)`. */
export const UNARY_PRECEDENCE = 7;

const WORD_OPS = new Set(['and', 'or', 'unless', 'atan2', 'default', 'if', 'ifnot']);
const PUNCT_OPS = new Set(['+', '-', '*', '/', '%', '^', '==', '!=', '<', '>', '<=', '>=']);

/** parse parses a MetricsQL/PromQL query into an AST; throws ParseError on bad input. */
export function parse(query: string): Expr {
  const ts = new TokenStream(query, tokenize(query));
  const p = new Parser(ts, new Scope(null), new ExpansionBudget(), 0);
  const e = p.parseExpr(0);
  p.expectEnd();
  return e;
}

class Parser {
  readonly ts: TokenStream;
  private scope: Scope;
  private readonly budget: ExpansionBudget;
  private readonly depth: number;

  constructor(ts: TokenStream, scope: Scope, budget: ExpansionBudget, depth: number) {
    this.ts = ts;
    this.scope = scope;
    this.budget = budget;
    this.depth = depth;
  }

  expectEnd(): void {
    if (this.ts.peek().kind !== 'eof') throw this.ts.unexpected('binary operator or end of input');
  }

  private peekBinaryOp(): BinaryOp | null {
    const t = this.ts.peek();
    if (t.kind === 'punct' && PUNCT_OPS.has(t.text)) return t.text as BinaryOp;
    if (t.kind === 'ident' && WORD_OPS.has(t.text.toLowerCase())) return t.text.toLowerCase() as BinaryOp;
    return null;
  }

  parseExpr(minPrec: number): Expr {
    return this.ts.nested(() => this.parseExprAt(minPrec));
  }

  private parseExprAt(minPrec: number): Expr {
    let lhs = this.parseUnary();
    for (;;) {
      const op = this.peekBinaryOp();
      if (op === null) return lhs;
      const prec = BINARY_PRECEDENCE[op];
      if (prec < minPrec) return lhs;
      const opTok = this.ts.next();
      const returnBool = isComparison(op) && this.ts.acceptWord('bool');
      if (!returnBool && this.ts.isWord('bool')) throw this.ts.fail('bool modifier can only be used on comparison operators');
      const matching = parseMatching(this.ts);
      const fill = parseFill(this.ts);
      const rhs = this.parseExpr(op === '^' ? prec : prec + 1);
      lhs = buildBinary(this.ts, opTok, op, lhs, rhs, returnBool, matching, fill);
    }
  }

  private parseUnary(): Expr {
    const ts = this.ts;
    if (ts.isPunct('-') || ts.isPunct('+')) {
      const opTok = ts.next();
      const op = opTok.text as '-' | '+';
      const parenthesised = ts.isPunct('(');
      const expr = this.parseExpr(UNARY_PRECEDENCE + 1);
      // A sign directly before a number literal is part of the literal, as in PromQL.
      if (expr.type === 'NumberLiteral' && !parenthesised) return op === '-' ? { ...expr, value: -expr.value } : expr;
      const t = typeOf(expr);
      if (t !== 'scalar' && t !== 'vector') throw ts.fail('unary expression only allowed on expressions of type scalar or instant vector', opTok);
      return { type: 'UnaryExpr', op, expr };
    }
    const { expr, parenthesised } = this.parsePrimary();
    return this.parsePostfix(expr, parenthesised);
  }

  private parsePrimary(): { expr: Expr; parenthesised: boolean } {
    const ts = this.ts;
    const t = ts.peek();
    switch (t.kind) {
      case 'number':
        ts.next();
        return { expr: { type: 'NumberLiteral', value: t.num }, parenthesised: false };
      case 'duration':
        if (t.steps) throw ts.fail(`step-based duration ${JSON.stringify(t.text)} is only allowed in ranges and offsets`, t);
        ts.next();
        return { expr: { type: 'NumberLiteral', value: t.num }, parenthesised: false };
      case 'string':
        ts.next();
        return { expr: { type: 'StringLiteral', value: t.str }, parenthesised: false };
      case 'ident':
        return { expr: this.parseIdentPrimary(t), parenthesised: false };
      case 'punct':
        if (t.text === '(') {
          ts.next();
          const expr = this.parseExpr(0);
          ts.expectPunct(')', '")" or binary operator');
          return { expr, parenthesised: true };
        }
        if (t.text === '{') return { expr: this.parseSelector(t, ''), parenthesised: false };
    }
    throw ts.unexpected('expression');
  }

  private parseIdentPrimary(t: Token): Expr {
    const ts = this.ts;
    const lower = t.text.toLowerCase();
    if (lower === 'with' && ts.isPunct('(', 1)) return this.parseWith();
    const tpl = this.scope.lookup(t.text);
    if (tpl !== null) return this.expandTemplate(tpl, t);
    if (isAggregation(lower) && (ts.isPunct('(', 1) || ts.isWord('by', 1) || ts.isWord('without', 1))) {
      return this.parseAggregation();
    }
    if (ts.isPunct('(', 1)) return this.parseCall();
    if ((lower === 'inf' || lower === 'nan') && !ts.isPunct('{', 1)) {
      ts.next();
      return { type: 'NumberLiteral', value: lower === 'inf' ? Infinity : NaN };
    }
    ts.next();
    return this.parseSelector(t, t.text);
  }

  private parseSelector(at: Token, name: string): VectorSelector {
    const ts = this.ts;
    let matcherSets: LabelMatcher[][] = [[]];
    let fullName = name;
    if (ts.isPunct('{')) {
      const b = parseBraces(ts, (n) => this.scope.filterMatchers(n));
      if (b.name !== '' && name !== '') throw ts.fail(`metric name must not be set twice: "${name}" or "${b.name}"`, at);
      fullName = name || b.name;
      matcherSets = b.matcherSets;
    }
    return finishSelector(ts, at, fullName, matcherSets);
  }

  private parsePostfix(e: Expr, parenthesised: boolean): Expr {
    const ts = this.ts;
    let expr = e;
    let paren = parenthesised;
    for (;;) {
      const t = ts.peek();
      if (ts.isPunct('[')) {
        expr = this.parseRange(expr, paren);
      } else if (ts.isWord('offset')) {
        ts.next();
        expr = withModifier(ts, t, expr, paren, { offset: parseDurationPrimary(ts) });
      } else if (ts.isPunct('@')) {
        ts.next();
        expr = withModifier(ts, t, expr, paren, { at: parseAt(ts) });
      } else if ((ts.isWord('anchored') || ts.isWord('smoothed')) && !paren && (expr.type === 'VectorSelector' || expr.type === 'MatrixSelector')) {
        expr = withExtension(ts, ts.next(), expr);
      } else {
        return expr;
      }
      paren = false;
    }
  }

  private parseRange(expr: Expr, paren: boolean): Expr {
    const ts = this.ts;
    const open = ts.next();
    const range = parseDurationExpr(ts);
    if (ts.acceptPunct(':')) {
      const step = ts.isPunct(']') ? null : parseDurationExpr(ts);
      ts.expectPunct(']', '"]" closing subquery');
      if (typeOf(expr) !== 'vector') throw ts.fail(`subquery is only allowed on instant vector, got ${typeOf(expr)}`, open);
      return { type: 'SubqueryExpr', expr, range, step, offset: null, at: null };
    }
    ts.expectPunct(']', '":" or "]" in range');
    if (expr.type !== 'VectorSelector' || paren) {
      throw ts.fail('ranges only allowed for vector selectors', open);
    }
    if (expr.offset !== null || expr.at !== null || expr.extended !== null) throw ts.fail('no offset, @ or smoothed modifiers allowed before range', open);
    return { type: 'MatrixSelector', selector: expr, range };
  }

  private parseArgs(labelSelectorAt = -1): Expr[] {
    const ts = this.ts;
    ts.expectPunct('(');
    const args: Expr[] = [];
    while (!ts.acceptPunct(')')) {
      args.push(args.length === labelSelectorAt && ts.isPunct('{') ? this.parseLabelSelector() : this.parseExpr(0));
      if (!ts.isPunct(')')) ts.expectPunct(',', '"," or ")" in argument list');
    }
    return args;
  }

  // parseLabelSelector reads info()'s data-label selector: braces that, unlike a series
  // selector, may hold only matchers accepting the empty value.
  private parseLabelSelector(): VectorSelector {
    const b = parseBraces(this.ts, (n) => this.scope.filterMatchers(n));
    if (b.matcherSets.length !== 1) throw this.ts.fail('info() takes a single label matcher set');
    return { type: 'VectorSelector', name: b.name, matcherSets: b.matcherSets, offset: null, at: null, extended: null };
  }

  private parseGrouping(): Grouping | null {
    const ts = this.ts;
    if (!ts.isWord('by') && !ts.isWord('without')) return null;
    const without = ts.next().text.toLowerCase() === 'without';
    return { without, labels: parseLabelList(ts) };
  }

  private parseAggregation(): AggregateExpr {
    const ts = this.ts;
    const opTok = ts.next();
    const op = opTok.text.toLowerCase();
    let grouping = this.parseGrouping();
    const args = this.parseArgs();
    if (grouping === null) grouping = this.parseGrouping();
    else if (ts.isWord('by') || ts.isWord('without')) throw ts.fail('grouping is given twice', ts.peek());
    let limit: number | null = null;
    if (ts.isWord('limit') && ts.peek(1).kind === 'number') {
      ts.next();
      const n = ts.next();
      if (!Number.isInteger(n.num) || n.num < 0) throw ts.fail(`limit must be a non-negative integer, got ${n.text}`, n);
      limit = n.num;
    }
    checkAggregation(ts, opTok, op, args);
    return { type: 'AggregateExpr', op, args, grouping, limit };
  }

  private parseCall(): FunctionCall {
    const ts = this.ts;
    const nameTok = ts.next();
    const func = nameTok.text.toLowerCase();
    const sig = FUNCTIONS.get(func);
    if (sig === undefined) throw ts.fail(`unknown function with name ${JSON.stringify(nameTok.text)}`, nameTok);
    const args = this.parseArgs(func === 'info' ? 1 : -1);
    checkArgs(ts, nameTok, sig, args, 'function');
    const keepMetricNames = ts.acceptWord('keep_metric_names');
    return { type: 'FunctionCall', func, args, keepMetricNames };
  }

  private parseWith(): Expr {
    const outer = this.scope;
    this.scope = parseWithDefinitions(this.ts, outer, (tokens, scope) => this.subParse(tokens, scope, this.depth));
    try {
      return this.parseExpr(0);
    } finally {
      this.scope = outer;
    }
  }

  private subParse(tokens: readonly Token[], scope: Scope, depth: number): Expr {
    const sub = new Parser(new TokenStream(this.ts.src, tokens, this.ts.nesting), scope, this.budget, depth);
    const e = sub.parseExpr(0);
    sub.expectEnd();
    return e;
  }

  private expandTemplate(tpl: Template, nameTok: Token): Expr {
    const ts = this.ts;
    ts.next();
    if (tpl.kind === 'value') {
      if (!ts.isPunct('{')) return tpl.body;
      if (tpl.body.type !== 'VectorSelector') throw ts.fail(`template "${nameTok.text}" is not a series selector, so it cannot take label filters`, ts.peek());
      return extendSelector(ts, nameTok, tpl.body, parseBraces(ts, (n) => this.scope.filterMatchers(n)));
    }
    if (!ts.isPunct('(')) throw ts.unexpected(`"(" after function template "${nameTok.text}"`);
    const args = this.parseArgs();
    if (args.length !== tpl.params.length) {
      throw ts.fail(`template "${nameTok.text}" expects ${tpl.params.length} arguments, got ${args.length}`, nameTok);
    }
    this.budget.use(ts, nameTok, this.depth + 1);
    return this.subParse(tpl.tokens, bindParams(tpl, args), this.depth + 1);
  }
}

export { ParseError };
