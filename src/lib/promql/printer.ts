// Printer: AST → query text such that parse(print(ast)) deep-equals ast. Parentheses are
// added exactly where precedence requires them (the AST has no parenthesis nodes).

import type { AggregateExpr, AtModifier, BinaryExpr, DurationExpr, Expr, FillValues, LabelMatcher, SubqueryExpr, UnaryExpr, VectorMatching, VectorSelector } from './ast.ts';
import { isPlainLabelName } from './parse-selector.ts';
import { BINARY_PRECEDENCE, UNARY_PRECEDENCE } from './parser.ts';
import { quoteString } from './strings.ts';

const ATOM = 100;
const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
// Names that would parse as something else when written bare.
const RESERVED_NAMES = new Set(['inf', 'nan', 'bool', 'with']);

/** print renders an expression as MetricsQL/PromQL text. */
export function print(e: Expr): string {
  switch (e.type) {
    case 'NumberLiteral': return formatNumber(e.value);
    case 'StringLiteral': return quoteString(e.value);
    case 'VectorSelector': return printSelector(e, true);
    case 'MatrixSelector':
      return `${printSelector(e.selector, false)}[${printDuration(e.range)}]${printModifiers(e.selector.offset, e.selector.at)}${printExtended(e.selector)}`;
    case 'SubqueryExpr':
      return `${parenthesized(e.expr, subqueryNeedsParens(e))}${subquerySuffix(e)}`;
    case 'UnaryExpr':
      return `${e.op}${parenthesized(e.expr, unaryNeedsParens(e))}`;
    case 'BinaryExpr':
      return `${parenthesized(e.lhs, operandNeedsParens(e, 'lhs'))} ${binaryOperatorText(e)} ${parenthesized(e.rhs, operandNeedsParens(e, 'rhs'))}`;
    case 'AggregateExpr':
      return `${aggregateHead(e)}(${e.args.map(print).join(', ')})${aggregateTail(e)}`;
    case 'FunctionCall':
      return `${e.func}(${e.args.map(print).join(', ')})${functionTail(e)}`;
  }
}

const parenthesized = (e: Expr, parens: boolean): string => (parens ? `(${print(e)})` : print(e));

// The pieces below are shared with the pretty printer (prettier.ts), so both spell a node alike.

/** subqueryNeedsParens: the inner expression of a subquery must be parenthesized. */
export function subqueryNeedsParens(e: SubqueryExpr): boolean {
  return strength(e.expr) !== ATOM;
}

/** subquerySuffix is what follows a subquery's expression: `[range:step]` and its modifiers. */
export function subquerySuffix(e: SubqueryExpr): string {
  const step = e.step === null ? '' : printDuration(e.step);
  return `[${printDuration(e.range)}:${step}]${printModifiers(e.offset, e.at)}`;
}

/** unaryNeedsParens: the operand of a unary operator must be parenthesized. */
export function unaryNeedsParens(e: UnaryExpr): boolean {
  return e.expr.type === 'NumberLiteral' || strength(e.expr) <= UNARY_PRECEDENCE;
}

/** operandNeedsParens: one side of a binary expression must be parenthesized (precedence, associativity). */
export function operandNeedsParens(e: BinaryExpr, side: 'lhs' | 'rhs'): boolean {
  const prec = BINARY_PRECEDENCE[e.op];
  const rightAssoc = e.op === '^';
  const s = strength(e[side]);
  return s < prec || (s === prec && (side === 'lhs' ? rightAssoc : !rightAssoc));
}

/** binaryOperatorText is the operator of a binary expression with its modifiers: `/ on(a) group_left(b)`. */
export function binaryOperatorText(e: BinaryExpr): string {
  return `${e.op}${e.returnBool ? ' bool' : ''}${printMatching(e.matching)}${printFill(e.fill)}`;
}

/** aggregateHead is an aggregation's operator and grouping: `sum by (job)`. */
export function aggregateHead(e: AggregateExpr): string {
  return `${e.op}${e.grouping === null ? '' : ` ${e.grouping.without ? 'without' : 'by'} (${e.grouping.labels.map(printLabelName).join(', ')})`}`;
}

/** aggregateTail is what follows an aggregation's arguments (MetricsQL ` limit N`). */
export function aggregateTail(e: AggregateExpr): string {
  return e.limit === null ? '' : ` limit ${e.limit}`;
}

/** functionTail is what follows a function call's arguments (MetricsQL ` keep_metric_names`). */
export function functionTail(e: { readonly keepMetricNames: boolean }): string {
  return e.keepMetricNames ? ' keep_metric_names' : '';
}

// strength: how tightly an expression binds when written without parentheses.
function strength(e: Expr): number {
  if (e.type === 'BinaryExpr') return BINARY_PRECEDENCE[e.op];
  if (e.type === 'UnaryExpr') return UNARY_PRECEDENCE;
  if (e.type === 'NumberLiteral' && (e.value < 0 || Object.is(e.value, -0))) return UNARY_PRECEDENCE;
  return ATOM;
}

/** formatNumber writes a float so that the lexer reads back the same value. */
export function formatNumber(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

function printMatching(m: VectorMatching | null): string {
  if (m === null) return '';
  let s = ` ${m.on ? 'on' : 'ignoring'}(${m.labels.map(printLabelName).join(', ')})`;
  if (m.card === 'many-to-one' || m.card === 'one-to-many') {
    s += ` ${m.card === 'many-to-one' ? 'group_left' : 'group_right'}(${m.include.map(printLabelName).join(', ')})`;
  }
  return s;
}

function printFill(f: FillValues | null): string {
  if (f === null) return '';
  if (f.left !== null && Object.is(f.left, f.right)) return ` fill(${formatNumber(f.left)})`;
  return `${f.left === null ? '' : ` fill_left(${formatNumber(f.left)})`}${f.right === null ? '' : ` fill_right(${formatNumber(f.right)})`}`;
}

/** printLabelName writes a label name bare when possible, else quoted (Prometheus 3). */
export function printLabelName(n: string): string {
  return isPlainLabelName(n) ? n : quoteString(n);
}

function printMatcher(m: LabelMatcher): string {
  return `${printLabelName(m.name)}${m.op}${quoteString(m.value)}`;
}

function printSelector(s: VectorSelector, withModifiers: boolean): string {
  const bareName = s.name !== '' && METRIC_NAME_RE.test(s.name) && !RESERVED_NAMES.has(s.name.toLowerCase());
  const sets = s.matcherSets.map((set) => set.map(printMatcher).join(', '));
  const hasMatchers = sets.some((x) => x !== '');
  let body = sets.join(' or ');
  if (s.name !== '' && !bareName) body = body === '' ? quoteString(s.name) : `${quoteString(s.name)}, ${body}`;
  const braces = body !== '' || !hasMatchers && !bareName ? `{${body}}` : '';
  const head = bareName ? s.name : '';
  return `${head}${braces}${withModifiers ? printModifiers(s.offset, s.at) + printExtended(s) : ''}`;
}

const printExtended = (s: VectorSelector): string => (s.extended === null ? '' : ` ${s.extended}`);

function printModifiers(offset: DurationExpr | null, at: AtModifier | null): string {
  let s = '';
  if (offset !== null) s += ` offset ${printDurationPrimary(offset)}`;
  if (at !== null) s += ` @ ${at.type === 'AtStart' ? 'start()' : at.type === 'AtEnd' ? 'end()' : formatNumber(at.seconds)}`;
  return s;
}

const DURATION_PREC: Readonly<Record<string, number>> = { '+': 1, '-': 1, '*': 2, '/': 2, '%': 2, '^': 4 };

function durationStrength(d: DurationExpr): number {
  if (d.type === 'DurationBinary') return DURATION_PREC[d.op]!;
  if (d.type === 'DurationUnary') return 3;
  if (d.type === 'DurationLiteral' && (d.value < 0 || Object.is(d.value, -0))) return 3;
  return ATOM;
}

function printDurationPrimary(d: DurationExpr): string {
  return d.type === 'DurationLiteral' || d.type === 'DurationCall' ? printDuration(d) : `(${printDuration(d)})`;
}

/** printDuration writes a duration expression (seconds; `i` for steps). */
export function printDuration(d: DurationExpr): string {
  switch (d.type) {
    case 'DurationLiteral':
      return d.unit === 'i' ? `${formatNumber(d.value)}i` : formatSeconds(d.value);
    case 'DurationUnary':
      return `${d.op}(${printDuration(d.expr)})`;
    case 'DurationCall':
      return `${d.func}(${d.args.map(printDuration).join(', ')})`;
    case 'DurationBinary': {
      const prec = DURATION_PREC[d.op]!;
      const right = d.op === '^';
      const ls = durationStrength(d.lhs);
      const rs = durationStrength(d.rhs);
      const l = ls < prec || (right && ls === prec) ? `(${printDuration(d.lhs)})` : printDuration(d.lhs);
      const r = rs < prec || (!right && rs === prec) ? `(${printDuration(d.rhs)})` : printDuration(d.rhs);
      return `${l} ${d.op} ${r}`;
    }
  }
}

const UNITS: readonly (readonly [string, number])[] = [
  ['y', 31536000000], ['w', 604800000], ['d', 86400000], ['h', 3600000], ['m', 60000], ['s', 1000], ['ms', 1],
];

/** formatSeconds writes seconds as a duration (`1h30m`) when whole ms, else as a number. */
export function formatSeconds(v: number): string {
  if (Object.is(v, -0)) return '-0';
  if (v < 0) return `-${formatSeconds(-v)}`;
  const ms = v * 1000;
  if (!Number.isSafeInteger(ms) || ms / 1000 !== v) return formatNumber(v);
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of UNITS) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out;
}
