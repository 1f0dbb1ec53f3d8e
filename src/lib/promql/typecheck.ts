// Static typing of expressions, as Prometheus' parser checks it, with MetricsQL's leniency
// for implicit rollup windows (`rate(m)`).

import type { BinaryExpr, BinaryOp, Expr, FillValues, ValueType, VectorMatching } from './ast.ts';
import { AGGREGATION_PARAMS, FUNCTIONS, type ArgType, type FunctionSignature } from './functions.ts';
import type { Token } from './lexer.ts';
import type { TokenStream } from './token-stream.ts';

/** typeOf returns the PromQL type an expression evaluates to. */
export function typeOf(e: Expr): ValueType {
  switch (e.type) {
    case 'NumberLiteral': return 'scalar';
    case 'StringLiteral': return 'string';
    case 'VectorSelector': return 'vector';
    case 'MatrixSelector':
    case 'SubqueryExpr': return 'matrix';
    case 'UnaryExpr': return typeOf(e.expr);
    case 'BinaryExpr': return typeOf(e.lhs) === 'scalar' && typeOf(e.rhs) === 'scalar' ? 'scalar' : 'vector';
    case 'AggregateExpr': return 'vector';
    case 'FunctionCall': return FUNCTIONS.get(e.func)?.returns ?? 'vector';
  }
}

const TYPE_NAMES: Readonly<Record<ArgType, string>> = {
  scalar: 'scalar', vector: 'instant vector', matrix: 'range vector', string: 'string', range: 'range vector',
};

export const isComparison = (op: BinaryOp): boolean => ['==', '!=', '>', '<', '>=', '<='].includes(op);
export const isSetOp = (op: BinaryOp): boolean => op === 'and' || op === 'or' || op === 'unless';
const isMetricsQLOp = (op: BinaryOp): boolean => op === 'default' || op === 'if' || op === 'ifnot';

/** buildBinary type-checks and builds a binary expression; errors point at the operator. */
export function buildBinary(
  ts: TokenStream, opTok: Token, op: BinaryOp, lhs: Expr, rhs: Expr, returnBool: boolean, matching: VectorMatching | null,
  fill: FillValues | null = null,
): BinaryExpr {
  const lt = typeOf(lhs);
  const rt = typeOf(rhs);
  const fail = (msg: string): never => {
    throw ts.fail(msg, opTok);
  };
  for (const t of [lt, rt]) {
    if (t !== 'scalar' && t !== 'vector') fail('binary expression must contain only scalar and instant vector types');
  }
  if (returnBool && !isComparison(op)) fail('bool modifier can only be used on comparison operators');
  if (isComparison(op) && lt === 'scalar' && rt === 'scalar' && !returnBool) fail('comparisons between scalars must use BOOL modifier');
  if (isSetOp(op) && (lt === 'scalar' || rt === 'scalar')) fail(`set operator "${op}" not allowed in binary scalar expression`);
  let m = matching;
  if (m !== null) {
    if (lt !== 'vector' || rt !== 'vector') {
      if (m.labels.length > 0 || m.card !== 'one-to-one') fail('vector matching only allowed between instant vectors');
      m = null;
    } else if (isSetOp(op) || isMetricsQLOp(op)) {
      if (m.card === 'many-to-one' || m.card === 'one-to-many') fail(`no grouping allowed for "${op}" operation`);
      m = { ...m, card: 'many-to-many' };
    } else if (m.card !== 'one-to-one' && m.on) {
      for (const l of m.include) {
        if (m.labels.includes(l)) fail(`label "${l}" must not occur in ON and GROUP clause at once`);
      }
    }
  }
  if (fill !== null && (lt !== 'vector' || rt !== 'vector' || isSetOp(op) || isMetricsQLOp(op))) {
    fail('fill modifiers are only allowed for arithmetic and comparison operations between instant vectors');
  }
  return { type: 'BinaryExpr', op, lhs, rhs, returnBool, matching: m, fill };
}

/** argAccepts reports whether an argument expression fits a parameter type. */
function argAccepts(want: ArgType, e: Expr): boolean {
  const got = typeOf(e);
  if (want === 'range') return got === 'matrix' || e.type === 'VectorSelector';
  return got === want;
}

function describe(e: Expr): string {
  return TYPE_NAMES[typeOf(e)];
}

/** checkArgs validates a call's arguments against a signature; errors point at `at`. */
export function checkArgs(ts: TokenStream, at: Token, sig: FunctionSignature, args: readonly Expr[], what: string): void {
  const max = sig.variadic ? Infinity : sig.args.length;
  if (args.length < sig.minArgs || args.length > max) {
    const want = sig.variadic ? `at least ${sig.minArgs}` : sig.minArgs === sig.args.length ? `${sig.minArgs}` : `${sig.minArgs} to ${max}`;
    throw ts.fail(`wrong number of arguments for ${what} "${sig.name}": expected ${want}, got ${args.length}`, at);
  }
  args.forEach((a, i) => {
    const want = sig.args[Math.min(i, sig.args.length - 1)]!;
    if (!argAccepts(want, a)) {
      throw ts.fail(`expected type ${TYPE_NAMES[want]} in call to ${what} "${sig.name}", got ${describe(a)}`, at);
    }
  });
}

/** checkAggregation validates `op(params..., expr)`: parameters, then one instant vector. */
export function checkAggregation(ts: TokenStream, at: Token, op: string, args: readonly Expr[]): void {
  const sig = AGGREGATION_PARAMS.get(op)!;
  const nParams = args.length - 1;
  const maxParams = sig.variadic ? Infinity : sig.args.length;
  if (args.length === 0 || nParams < sig.minArgs || nParams > maxParams) {
    const want = sig.variadic ? `at least ${sig.minArgs + 1}` : `${sig.args.length + 1}`;
    throw ts.fail(`wrong number of arguments for aggregation "${op}": expected ${want}, got ${args.length}`, at);
  }
  args.forEach((a, i) => {
    const want: ArgType = i === nParams ? 'vector' : sig.args[Math.min(i, sig.args.length - 1)]!;
    if (!argAccepts(want, a)) {
      throw ts.fail(`expected type ${TYPE_NAMES[want]} in aggregation "${op}", got ${describe(a)}`, at);
    }
  });
}
