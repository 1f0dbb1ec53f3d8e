// The AST as JSON in the shape of Prometheus' /api/v1/parse_query (web/api/v1/translate_ast.go),
// which the Prometheus UI's tree view and tools that explain queries read. Where MetricsQL goes
// beyond PromQL, the Prometheus fields keep their meaning and extra fields carry the rest:
// - a selector with OR-ed matcher sets (`{a="1" or b="2"}`) lists the first set in `matchers`
//   and every set in `matcherSets`;
// - an aggregation with several parameters (`quantiles("q", 0.5, 0.9, x)`) has the first in
//   `param` and all in `params`; MetricsQL's `limit N` is `limit`;
// - a call with `keep_metric_names` has `keepMetricNames: true`;
// - a range, offset or step that depends on the query (`[5i]`, `[step()*2]`) cannot be given in
//   milliseconds: it is null, and `rangeText` (`offsetText`, `stepText`) spells it.

import type { AggregateExpr, AtModifier, BinaryExpr, DurationExpr, Expr, LabelMatcher, VectorSelector } from './ast.ts';
import { FUNCTIONS, type ArgType } from './functions.ts';
import { evalDuration, isConstantDuration } from './parse-duration.ts';
import { printDuration } from './printer.ts';
import { isSetOp, typeOf } from './typecheck.ts';

/** JsonNode is one node of the parse_query tree (a plain JSON object). */
export type JsonNode = { readonly [key: string]: unknown };

/** astToJson translates an expression into Prometheus' parse_query tree (see the file comment). */
export function astToJson(e: Expr): JsonNode {
  switch (e.type) {
    case 'NumberLiteral': return { type: 'numberLiteral', val: formatFixed(e.value) };
    case 'StringLiteral': return { type: 'stringLiteral', val: e.value };
    case 'VectorSelector': return { type: 'vectorSelector', ...selectorFields(e) };
    case 'MatrixSelector':
      return { type: 'matrixSelector', ...selectorFields(e.selector), ...durationField('range', e.range) };
    case 'SubqueryExpr':
      return {
        type: 'subquery', expr: astToJson(e.expr), ...durationField('range', e.range), ...durationField('offset', e.offset),
        ...(e.step === null ? { step: 0 } : durationField('step', e.step)), ...atFields(e.at), alignEvalTime: false,
      };
    case 'UnaryExpr': return { type: 'unaryExpr', op: e.op, expr: astToJson(e.expr) };
    case 'BinaryExpr': return binaryJson(e);
    case 'AggregateExpr': return aggregationJson(e);
    case 'FunctionCall': {
      const sig = FUNCTIONS.get(e.func);
      const func = sig === undefined
        ? { name: e.func, argTypes: [], variadic: 0, returnType: typeOf(e) }
        : { name: e.func, argTypes: sig.args.map(valueTypeName), variadic: sig.variadic ? -1 : sig.args.length - sig.minArgs, returnType: sig.returns };
      return { type: 'call', func, args: e.args.map(astToJson), ...(e.keepMetricNames ? { keepMetricNames: true } : {}) };
    }
  }
}

const valueTypeName = (t: ArgType): string => (t === 'range' ? 'matrix' : t);

function selectorFields(s: VectorSelector): JsonNode {
  // Prometheus appends the matcher of a name written outside the braces to the others.
  const withName = (set: readonly LabelMatcher[]) => [...set, ...(s.name === '' ? [] : [{ name: '__name__', op: '=' as const, value: s.name }])].map(matcherJson);
  return {
    name: s.name,
    ...durationField('offset', s.offset),
    matchers: withName(s.matcherSets[0] ?? []),
    ...(s.matcherSets.length > 1 ? { matcherSets: s.matcherSets.map(withName) } : {}),
    ...atFields(s.at),
    anchored: s.extended === 'anchored',
    smoothed: s.extended === 'smoothed',
  };
}

const matcherJson = (m: LabelMatcher) => ({ name: m.name, value: m.value, type: m.op });

// durationField: `{<name>: ms}`, 0 for an absent offset, or null and `<name>Text` when the
// duration depends on the query's step or range.
function durationField(name: string, d: DurationExpr | null): JsonNode {
  if (d === null) return { [name]: 0 };
  if (!isConstantDuration(d)) return { [name]: null, [`${name}Text`]: printDuration(d) };
  return { [name]: ms(evalDuration(d, { stepSeconds: 0, rangeSeconds: 0 })) };
}

// ms converts seconds to integer milliseconds; one that overflows a double (`@ 1e308`) is spelled
// as a string, since JSON has no infinities.
const ms = (seconds: number): number | string => jsonNumber(Math.round(seconds * 1000))!;

function atFields(at: AtModifier | null): JsonNode {
  if (at === null) return { timestamp: null, startOrEnd: null };
  if (at.type === 'AtTime') return { timestamp: ms(at.seconds), startOrEnd: null };
  return { timestamp: null, startOrEnd: at.type === 'AtStart' ? 'start' : 'end' };
}

function binaryJson(e: BinaryExpr): JsonNode {
  // As Prometheus' parser: matching is set whenever both sides are instant vectors (one-to-one by
  // default, many-to-many for and/or/unless), and null when a scalar is involved.
  const vectors = typeOf(e.lhs) !== 'scalar' && typeOf(e.rhs) !== 'scalar';
  const m = e.matching;
  const matching = !vectors ? null : {
    card: m?.card ?? (isSetOp(e.op) ? 'many-to-many' : 'one-to-one'),
    labels: m?.labels ?? [],
    on: m?.on ?? false,
    include: m?.include ?? [],
    fillValues: { lhs: jsonNumber(e.fill?.left ?? null), rhs: jsonNumber(e.fill?.right ?? null) },
  };
  return { type: 'binaryExpr', op: e.op, lhs: astToJson(e.lhs), rhs: astToJson(e.rhs), matching, bool: e.returnBool };
}

// JSON has no NaN or infinities: those are written as Prometheus spells them (and JSON keeps no -0).
const jsonNumber = (v: number | null): number | string | null => (v === null ? null : Number.isFinite(v) ? v + 0 : formatFixed(v));

function aggregationJson(e: AggregateExpr): JsonNode {
  const params = e.args.slice(0, -1);
  return {
    type: 'aggregation', op: e.op, expr: astToJson(e.args[e.args.length - 1]!),
    param: params.length > 0 ? astToJson(params[0]!) : null,
    ...(params.length > 1 ? { params: params.map(astToJson) } : {}),
    grouping: e.grouping?.labels ?? [],
    without: e.grouping?.without ?? false,
    ...(e.limit === null ? {} : { limit: e.limit }),
  };
}

/**
 * formatFixed spells a float as Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that
 * read back as v, never with an exponent (1e21 → "1000000000000000000000"); NaN, +Inf, -Inf.
 */
export function formatFixed(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  const s = String(v);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const neg = s.startsWith('-');
  const mantissa = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot < 0 ? mantissa.length : dot) + exp; // digits before the decimal point
  const body = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return neg ? `-${body}` : body;
}
