// Recursive-descent parser for the CEL subset: literals, lists, maps, member access, indexing,
// calls, the has/all/exists/exists_one/map/filter macros, unary, arithmetic, relations, in,
// && || and the ternary operator (precedence as in the CEL spec).
import { CelParseError, tokenize } from './lexer.ts';
import type { Token } from './lexer.ts';

/** CelExpr is the AST of a parsed expression. */
export type CelExpr =
  | { readonly type: 'literal'; readonly value: unknown }
  | { readonly type: 'ident'; readonly name: string }
  | { readonly type: 'select'; readonly operand: CelExpr; readonly field: string }
  | { readonly type: 'index'; readonly operand: CelExpr; readonly index: CelExpr }
  | { readonly type: 'call'; readonly target: CelExpr | undefined; readonly fn: string; readonly args: readonly CelExpr[] }
  | { readonly type: 'has'; readonly operand: CelExpr; readonly field: string }
  | { readonly type: 'comprehension'; readonly macro: 'all' | 'exists' | 'exists_one' | 'map' | 'filter'; readonly range: CelExpr; readonly variable: string; readonly body: CelExpr }
  | { readonly type: 'list'; readonly items: readonly CelExpr[] }
  | { readonly type: 'map'; readonly entries: readonly { readonly key: CelExpr; readonly value: CelExpr }[] }
  | { readonly type: 'unary'; readonly op: '!' | '-'; readonly operand: CelExpr }
  | { readonly type: 'binary'; readonly op: string; readonly left: CelExpr; readonly right: CelExpr }
  | { readonly type: 'conditional'; readonly test: CelExpr; readonly then: CelExpr; readonly else: CelExpr };

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const MAX_DEPTH = 200;

class Parser {
  readonly #tokens: Token[];
  #pos = 0;
  #depth = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): CelExpr {
    const expr = this.expr();
    const t = this.peek();
    if (t.type !== 'eof') throw new CelParseError('unexpected trailing input', t.pos);
    return expr;
  }

  private peek(): Token {
    return this.#tokens[this.#pos]!;
  }

  private next(): Token {
    const t = this.#tokens[this.#pos]!;
    if (t.type !== 'eof') this.#pos++;
    return t;
  }

  private isOp(value: string): boolean {
    const t = this.peek();
    return t.type === 'op' && t.value === value;
  }

  private expect(value: string): void {
    const t = this.next();
    if (t.type !== 'op' || t.value !== value) throw new CelParseError(`expected "${value}"`, t.pos);
  }

  private expr(): CelExpr {
    if (++this.#depth > MAX_DEPTH) throw new CelParseError('expression nested too deeply', this.peek().pos);
    try {
      const test = this.binary(0);
      if (!this.isOp('?')) return test;
      this.next();
      const then = this.binary(0);
      this.expect(':');
      return { type: 'conditional', test, then, else: this.expr() };
    } finally {
      this.#depth--;
    }
  }

  // Precedence levels from loosest to tightest.
  static readonly LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['==', '!=', '<', '<=', '>', '>=', 'in'], ['+', '-'], ['*', '/', '%']];

  private binary(level: number): CelExpr {
    const ops = Parser.LEVELS[level];
    if (ops === undefined) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      const op = t.type === 'op' ? t.value : t.type === 'ident' && t.value === 'in' ? 'in' : undefined;
      if (op === undefined || !ops.includes(op)) return left;
      this.next();
      left = { type: 'binary', op, left, right: this.binary(level + 1) };
    }
  }

  private unary(): CelExpr {
    if (this.isOp('!') || this.isOp('-')) {
      const op = this.next() as { value: '!' | '-' };
      if (++this.#depth > MAX_DEPTH) throw new CelParseError('expression nested too deeply', this.peek().pos);
      try {
        return { type: 'unary', op: op.value, operand: this.unary() };
      } finally {
        this.#depth--;
      }
    }
    return this.member();
  }

  private member(): CelExpr {
    let expr = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const name = this.next();
        if (name.type !== 'ident') throw new CelParseError('expected a field or method name', name.pos);
        if (this.isOp('(')) expr = this.methodCall(expr, name.value, name.pos);
        else expr = { type: 'select', operand: expr, field: name.value };
      } else if (this.isOp('[')) {
        this.next();
        const index = this.expr();
        this.expect(']');
        expr = { type: 'index', operand: expr, index };
      } else {
        return expr;
      }
    }
  }

  private methodCall(target: CelExpr, fn: string, pos: number): CelExpr {
    const args = this.args();
    if (MACROS.has(fn) && args.length === 2) {
      const variable = args[0]!;
      if (variable.type !== 'ident') throw new CelParseError(`${fn}() needs a variable name as first argument`, pos);
      return { type: 'comprehension', macro: fn as 'all', range: target, variable: variable.name, body: args[1]! };
    }
    return { type: 'call', target, fn, args };
  }

  private args(): CelExpr[] {
    this.expect('(');
    const args: CelExpr[] = [];
    if (!this.isOp(')')) {
      do args.push(this.expr());
      while (this.isOp(',') && this.next());
    }
    this.expect(')');
    return args;
  }

  private primary(): CelExpr {
    const t = this.next();
    switch (t.type) {
      case 'int':
      case 'double':
      case 'string':
        return { type: 'literal', value: t.value };
      case 'ident':
        return this.identifier(t.value, t.pos);
      case 'op':
        return this.grouping(t.value, t.pos);
      case 'eof':
        throw new CelParseError('unexpected end of expression', t.pos);
    }
  }

  private identifier(name: string, pos: number): CelExpr {
    if (name === 'true' || name === 'false') return { type: 'literal', value: name === 'true' };
    if (name === 'null') return { type: 'literal', value: null };
    if (!this.isOp('(')) return { type: 'ident', name };
    const args = this.args();
    if (name === 'has') {
      const arg = args[0];
      if (args.length !== 1 || arg === undefined || arg.type !== 'select') throw new CelParseError('has() needs one field selection argument', pos);
      return { type: 'has', operand: arg.operand, field: arg.field };
    }
    return { type: 'call', target: undefined, fn: name, args };
  }

  private grouping(op: string, pos: number): CelExpr {
    if (op === '(') {
      const inner = this.expr();
      this.expect(')');
      return inner;
    }
    if (op === '[') {
      const items: CelExpr[] = [];
      if (!this.isOp(']')) {
        do items.push(this.expr());
        while (this.isOp(',') && this.next() && !this.isOp(']'));
      }
      this.expect(']');
      return { type: 'list', items };
    }
    if (op === '{') {
      const entries: { key: CelExpr; value: CelExpr }[] = [];
      if (!this.isOp('}')) {
        do {
          const key = this.expr();
          this.expect(':');
          entries.push({ key, value: this.expr() });
        } while (this.isOp(',') && this.next() && !this.isOp('}'));
      }
      this.expect('}');
      return { type: 'map', entries };
    }
    throw new CelParseError(`unexpected "${op}"`, pos);
  }
}

/** parseCel parses an expression; throws CelParseError (and nothing else) on bad input. */
export function parseCel(src: string): CelExpr {
  return new Parser(tokenize(src)).parse();
}
