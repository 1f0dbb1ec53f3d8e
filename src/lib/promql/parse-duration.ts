// Duration expressions (Prometheus 3): `[26m+4m]`, `[1800]`, `[step()*2]`, `offset -min_of(step(), 1s)`.
// All values are seconds; a bare number means seconds. MetricsQL `5i` means 5 query steps.

import type { DurationBinaryOp, DurationCall, DurationExpr } from './ast.ts';
import type { TokenStream } from './token-stream.ts';

const PREC: Readonly<Record<string, number>> = { '+': 1, '-': 1, '*': 2, '/': 2, '%': 2, '^': 4 };
const UNARY_PREC = 3;
const CALLS: Readonly<Record<string, number>> = { step: 0, range: 0, min_of: 2, max_of: 2 };

/** parseDurationExpr parses a full duration expression (inside `[...]`). */
export function parseDurationExpr(ts: TokenStream, minPrec = 0): DurationExpr {
  return ts.nested(() => parseDurationAt(ts, minPrec));
}

function parseDurationAt(ts: TokenStream, minPrec: number): DurationExpr {
  let lhs = parseUnary(ts);
  for (;;) {
    const t = ts.peek();
    const prec = t.kind === 'punct' ? PREC[t.text] : undefined;
    if (prec === undefined || prec < minPrec) return lhs;
    ts.next();
    const rhs = parseDurationExpr(ts, t.text === '^' ? prec : prec + 1);
    lhs = { type: 'DurationBinary', op: t.text as DurationBinaryOp, lhs, rhs };
  }
}

/**
 * parseDurationPrimary parses what may follow `offset` without parentheses: an optionally
 * signed literal, call or parenthesised expression (`offset 100 + 2` adds 2 to the result).
 */
export function parseDurationPrimary(ts: TokenStream): DurationExpr {
  if (ts.isPunct('-') || ts.isPunct('+')) {
    const op = ts.next().text as '-' | '+';
    const parenthesised = ts.isPunct('(');
    return signed(op, parseAtom(ts), parenthesised);
  }
  return parseAtom(ts);
}

function parseUnary(ts: TokenStream): DurationExpr {
  if (ts.isPunct('-') || ts.isPunct('+')) {
    const op = ts.next().text as '-' | '+';
    const parenthesised = ts.isPunct('(');
    return signed(op, parseDurationExpr(ts, UNARY_PREC + 1), parenthesised);
  }
  return parseAtom(ts);
}

// signed folds a sign into a literal written right after it (`-5m` is a literal, as in
// PromQL numbers); `-(5m)` stays a unary node so that printing round-trips.
function signed(op: '-' | '+', expr: DurationExpr, parenthesised: boolean): DurationExpr {
  if (!parenthesised && expr.type === 'DurationLiteral') {
    return op === '-' ? { ...expr, value: -expr.value } : expr;
  }
  return { type: 'DurationUnary', op, expr };
}

function parseAtom(ts: TokenStream): DurationExpr {
  const t = ts.peek();
  if (t.kind === 'duration') {
    ts.next();
    return { type: 'DurationLiteral', value: t.num, unit: t.steps ? 'i' : 's' };
  }
  if (t.kind === 'number') {
    if (!Number.isFinite(t.num)) throw ts.fail(`duration must be a finite number, got ${JSON.stringify(t.text)}`, t);
    ts.next();
    return { type: 'DurationLiteral', value: t.num, unit: 's' };
  }
  if (t.kind === 'punct' && t.text === '(') {
    ts.next();
    const e = parseDurationExpr(ts);
    ts.expectPunct(')', '")" in duration expression');
    return e;
  }
  const arity = t.kind === 'ident' ? CALLS[t.text.toLowerCase()] : undefined;
  if (arity !== undefined && ts.isPunct('(', 1)) return parseCall(ts, arity);
  throw ts.unexpected('duration');
}

function parseCall(ts: TokenStream, arity: number): DurationCall {
  const func = ts.next().text.toLowerCase() as DurationCall['func'];
  ts.expectPunct('(');
  const args: DurationExpr[] = [];
  while (!ts.isPunct(')')) {
    if (args.length > 0) ts.expectPunct(',', `"," or ")" in ${func}()`);
    args.push(parseDurationExpr(ts));
  }
  if (args.length !== arity) {
    throw ts.fail(`${func}() expects ${arity} argument${arity === 1 ? '' : 's'}, got ${args.length}`);
  }
  ts.next();
  return { type: 'DurationCall', func, args };
}

/**
 * DurationContext: what step() and range() resolve to, in seconds (Prometheus: step() is 0
 * for an instant query), and the length of MetricsQL's `i` unit (defaults to stepSeconds).
 */
export interface DurationContext {
  readonly stepSeconds: number;
  readonly rangeSeconds: number;
  readonly stepUnitSeconds?: number;
}

/** evalDuration computes a duration expression in seconds. */
export function evalDuration(d: DurationExpr, ctx: DurationContext): number {
  switch (d.type) {
    case 'DurationLiteral':
      return d.unit === 'i' ? d.value * (ctx.stepUnitSeconds ?? ctx.stepSeconds) : d.value;
    case 'DurationUnary':
      return d.op === '-' ? -evalDuration(d.expr, ctx) : evalDuration(d.expr, ctx);
    case 'DurationCall': {
      if (d.func === 'step') return ctx.stepSeconds;
      if (d.func === 'range') return ctx.rangeSeconds;
      const a = evalDuration(d.args[0]!, ctx);
      const b = evalDuration(d.args[1]!, ctx);
      return d.func === 'min_of' ? Math.min(a, b) : Math.max(a, b);
    }
    case 'DurationBinary': {
      const a = evalDuration(d.lhs, ctx);
      const b = evalDuration(d.rhs, ctx);
      switch (d.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '%': return a % b;
        case '^': return a ** b;
      }
    }
  }
}

/** isConstantDuration reports whether d needs no query context (no step(), range() or `i`). */
export function isConstantDuration(d: DurationExpr): boolean {
  switch (d.type) {
    case 'DurationLiteral': return d.unit === 's';
    case 'DurationUnary': return isConstantDuration(d.expr);
    case 'DurationCall': return d.func !== 'step' && d.func !== 'range' && d.args.every(isConstantDuration);
    case 'DurationBinary': return isConstantDuration(d.lhs) && isConstantDuration(d.rhs);
  }
}
