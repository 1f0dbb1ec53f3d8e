// fast-check generators of well-typed, canonical ASTs (the forms the parser produces), shared
// by the printer round-trip property and the evaluator's robustness property.

import fc from 'fast-check';
import type {
  AggregateExpr, AtModifier, BinaryOp, DurationExpr, Expr, FillValues, FunctionCall, LabelMatcher, VectorMatching, VectorSelector,
} from './ast.ts';


const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);
const labelName = fc.oneof(ident, fc.constantFrom('__name__', 'le', 'foo.bar', 'ü', 'on', 'by', 'or', 'bool'));
const metricName = fc.oneof(ident, fc.constantFrom('a:b', 'foo.bar', 'sum', 'offset', 'inf', 'NaN', 'bool', 'with', 'and', 'gauge', 'counter', 'lat_bucket'));
const text = fc.string({ unit: 'grapheme', maxLength: 6 });
const regexValue = fc.constantFrom('.*', 'a|b', '(?i)x', '[[:alpha:]]+', 'a\\.b', '');

const matcher: fc.Arbitrary<LabelMatcher> = fc.oneof(
  fc.record({ name: labelName, op: fc.constantFrom('=' as const, '!=' as const), value: text }),
  fc.record({ name: labelName, op: fc.constantFrom('=~' as const, '!~' as const), value: regexValue }),
);

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const durationLiteral: fc.Arbitrary<DurationExpr> = fc.oneof(
  fc.integer({ min: -1e9, max: 1e9 }).map((ms) => ({ type: 'DurationLiteral' as const, value: ms / 1000, unit: 's' as const })),
  finite.map((v) => ({ type: 'DurationLiteral' as const, value: v, unit: 's' as const })),
  fc.integer({ min: -50, max: 50 }).map((n) => ({ type: 'DurationLiteral' as const, value: n / 2, unit: 'i' as const })),
);

const duration: fc.Arbitrary<DurationExpr> = fc.letrec<{ d: DurationExpr }>((tie) => ({
  d: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    durationLiteral,
    fc.constantFrom('step' as const, 'range' as const).map((func) => ({ type: 'DurationCall' as const, func, args: [] })),
    fc.record({ type: fc.constant('DurationUnary' as const), op: fc.constantFrom('-' as const, '+' as const), expr: tie('d') }),
    fc.record({
      type: fc.constant('DurationBinary' as const), op: fc.constantFrom('+' as const, '-' as const, '*' as const, '/' as const, '%' as const, '^' as const),
      lhs: tie('d'), rhs: tie('d'),
    }),
    fc.record({ type: fc.constant('DurationCall' as const), func: fc.constantFrom('min_of' as const, 'max_of' as const), args: fc.tuple(tie('d'), tie('d')) }),
  ),
})).d;

const atModifier: fc.Arbitrary<AtModifier> = fc.oneof(
  finite.map((seconds) => ({ type: 'AtTime' as const, seconds })),
  fc.constant({ type: 'AtStart' as const }),
  fc.constant({ type: 'AtEnd' as const }),
);

const selector: fc.Arbitrary<VectorSelector> = fc
  .record({
    name: fc.oneof(fc.constant(''), metricName),
    sets: fc.array(fc.array(matcher, { maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    offset: fc.option(duration),
    at: fc.option(atModifier),
  })
  .map(({ name, sets, offset, at }) => {
    let matcherSets = sets.map((s) => (name === '' ? s : s.filter((m) => m.name !== '__name__')));
    // Keep it valid: every OR set non-empty, and a non-empty matcher when there is no name.
    if (matcherSets.length > 1 || name === '') {
      matcherSets = matcherSets.map((s) => (name === '' ? [...s, { name: 'job', op: '=' as const, value: 'x' }] : s.length > 0 ? s : [{ name: 'a', op: '=' as const, value: '' }]));
    }
    return { type: 'VectorSelector' as const, name, matcherSets, offset, at, extended: null };
  });

const rangeSelector = fc
  .record({ selector, ext: fc.constantFrom(null, 'anchored' as const, 'smoothed' as const) })
  .map(({ selector: s, ext }) => ({ ...s, extended: ext }));
const instantSelector = fc
  .record({ selector, smoothed: fc.boolean() })
  .map(({ selector: s, smoothed }) => ({ ...s, extended: smoothed ? ('smoothed' as const) : null }));

const scalarNumber: fc.Arbitrary<Expr> = fc.double().map((value) => ({ type: 'NumberLiteral' as const, value }));
export const str: fc.Arbitrary<Expr> = text.map((value) => ({ type: 'StringLiteral' as const, value }));

const ARITH: BinaryOp[] = ['+', '-', '*', '/', '%', '^', 'atan2'];
const COMPARE: BinaryOp[] = ['==', '!=', '>', '<', '>=', '<='];
const SETOPS: BinaryOp[] = ['and', 'or', 'unless'];

const matchingFor = (op: BinaryOp): fc.Arbitrary<VectorMatching | null> => {
  const set = SETOPS.includes(op);
  const cards = set ? (['many-to-many'] as const) : (['one-to-one', 'many-to-one', 'one-to-many'] as const);
  return fc.option(
    fc.record({
      card: fc.constantFrom(...cards),
      on: fc.boolean(),
      labels: fc.array(fc.constantFrom('a', 'b', 'x.y'), { maxLength: 2 }),
      include: fc.array(fc.constantFrom('c', 'd'), { maxLength: 2 }),
    }).map((m) => ({ ...m, include: m.card === 'one-to-one' || m.card === 'many-to-many' ? [] : m.include })),
  );
};

const fillValues: fc.Arbitrary<FillValues | null> = fc
  .option(fc.record({ left: fc.option(fc.double()), right: fc.option(fc.double()) }))
  .map((f) => (f === null || (f.left === null && f.right === null) ? null : f));

export const { vector, scalar } = fc.letrec<{ vector: Expr; scalar: Expr; matrix: Expr }>((tie) => {
  const vec = tie('vector');
  const sca = tie('scalar');
  const binary = (lhs: fc.Arbitrary<Expr>, rhs: fc.Arbitrary<Expr>, ops: BinaryOp[], bothVectors: boolean, scalars: boolean) =>
    fc.constantFrom(...ops).chain((op) =>
      fc.record({
        type: fc.constant('BinaryExpr' as const),
        op: fc.constant(op),
        lhs,
        rhs,
        returnBool: COMPARE.includes(op) ? (scalars ? fc.constant(true) : fc.boolean()) : fc.constant(false),
        matching: bothVectors ? matchingFor(op) : fc.constant(null),
        fill: bothVectors && !SETOPS.includes(op) ? fillValues : fc.constant(null),
      }),
    );
  const aggregate: fc.Arbitrary<AggregateExpr> = fc
    .record({
      op: fc.constantFrom('sum', 'avg', 'count', 'min', 'max', 'group', 'stddev', 'topk', 'quantile', 'count_values', 'limitk'),
      grouping: fc.option(fc.record({ without: fc.boolean(), labels: fc.array(labelName, { maxLength: 3 }) })),
      limit: fc.option(fc.nat(100)),
      param: sca,
      s: str,
      v: vec,
    })
    .map(({ op, grouping, limit, param, s, v }) => ({
      type: 'AggregateExpr' as const, op, grouping, limit,
      args: op === 'count_values' ? [s, v] : ['topk', 'quantile', 'limitk'].includes(op) ? [param, v] : [v],
    }));
  const call = (func: string, args: fc.Arbitrary<Expr>[]): fc.Arbitrary<FunctionCall> =>
    fc.record({ type: fc.constant('FunctionCall' as const), func: fc.constant(func), args: fc.tuple(...args), keepMetricNames: fc.boolean() });
  return {
    matrix: fc.oneof(
      fc.record({ type: fc.constant('MatrixSelector' as const), selector: rangeSelector, range: duration }),
      fc.record({ type: fc.constant('SubqueryExpr' as const), expr: vec, range: duration, step: fc.option(duration), offset: fc.option(duration), at: fc.option(atModifier) }),
    ),
    vector: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      instantSelector,
      fc.record({ type: fc.constant('UnaryExpr' as const), op: fc.constantFrom('-' as const, '+' as const), expr: vec }),
      binary(vec, vec, [...ARITH, ...COMPARE, ...SETOPS], true, false),
      binary(vec, sca, [...ARITH, ...COMPARE], false, false),
      binary(sca, vec, [...ARITH, ...COMPARE], false, false),
      aggregate,
      call('rate', [tie('matrix')]),
      call('abs', [vec]),
      call('clamp', [vec, sca, sca]),
      call('label_replace', [vec, str, str, str, str]),
      call('vector', [sca]),
      call('histogram_quantile', [sca, vec]),
    ),
    scalar: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalarNumber,
      fc.record({ type: fc.constant('UnaryExpr' as const), op: fc.constantFrom('-' as const, '+' as const), expr: sca }),
      binary(sca, sca, [...ARITH, ...COMPARE], false, true),
      call('time', []),
      call('scalar', [vec]),
    ),
  };
});

