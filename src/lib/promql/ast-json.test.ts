import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scalar, str, vector } from './_arbitrary.ts';
import { astToJson, formatFixed } from './ast-json.ts';
import { parse } from './parser.ts';

const sel = (name: string, matchers: object[], extra: object = {}) => ({
  name, offset: 0, matchers, timestamp: null, startOrEnd: null, anchored: false, smoothed: false, ...extra,
});

describe('astToJson', () => {
  it('gives the tree of Prometheus /api/v1/parse_query', () => {
    const f = (query: string, want: object) => expect(astToJson(parse(query))).toEqual(want);
    f('sum by (job) (rate(http_requests_total{code="500"}[5m] offset 1m))', {
      type: 'aggregation', op: 'sum', param: null, grouping: ['job'], without: false,
      expr: {
        type: 'call', func: { name: 'rate', argTypes: ['matrix'], variadic: 0, returnType: 'vector' },
        args: [{ type: 'matrixSelector', range: 300_000, ...sel('http_requests_total', [{ name: 'code', value: '500', type: '=' }, { name: '__name__', value: 'http_requests_total', type: '=' }], { offset: 60_000 }) }],
      },
    });
    f('topk(3, -up @ 100)', {
      type: 'aggregation', op: 'topk', param: { type: 'numberLiteral', val: '3' }, grouping: [], without: false,
      expr: { type: 'unaryExpr', op: '-', expr: { type: 'vectorSelector', ...sel('up', [{ name: '__name__', value: 'up', type: '=' }], { timestamp: 100_000 }) } },
    });
    // vector/vector: matching is set (one-to-one by default, many-to-many for set operators)
    const m = (card: string, extra: object = {}) => ({ card, labels: [], on: false, include: [], fillValues: { lhs: null, rhs: null }, ...extra });
    f('a / on(x) group_left(y) b', { type: 'binaryExpr', op: '/', bool: false, lhs: { type: 'vectorSelector', ...sel('a', [{ name: '__name__', value: 'a', type: '=' }]) }, rhs: { type: 'vectorSelector', ...sel('b', [{ name: '__name__', value: 'b', type: '=' }]) }, matching: m('many-to-one', { labels: ['x'], on: true, include: ['y'] }) });
    expect((astToJson(parse('a > bool b')) as { matching: object; bool: boolean })).toMatchObject({ bool: true, matching: m('one-to-one') });
    expect(astToJson(parse('a or b')).matching).toEqual(m('many-to-many'));
    // ... and null as soon as a scalar takes part
    expect(astToJson(parse('a * 2')).matching).toBeNull();
    // numbers are spelled as Go's FormatFloat(v, 'f', -1): no exponent
    f('1e21 + 1e-7', { type: 'binaryExpr', op: '+', bool: false, matching: null, lhs: { type: 'numberLiteral', val: '1000000000000000000000' }, rhs: { type: 'numberLiteral', val: '0.0000001' } });
    f('"x"', { type: 'stringLiteral', val: 'x' });
    f('max_over_time(up[1h:1m] @ end())', {
      type: 'call', func: { name: 'max_over_time', argTypes: ['matrix'], variadic: 0, returnType: 'vector' },
      args: [{ type: 'subquery', range: 3_600_000, step: 60_000, offset: 0, timestamp: null, startOrEnd: 'end', alignEvalTime: false, expr: { type: 'vectorSelector', ...sel('up', [{ name: '__name__', value: 'up', type: '=' }]) } }],
    });
    // optional and repeated arguments: Prometheus' `variadic` count (-1 = unbounded)
    expect(astToJson(parse('round(up)')).func).toEqual({ name: 'round', argTypes: ['vector', 'scalar'], variadic: 1, returnType: 'vector' });
    expect(astToJson(parse('label_join(up, "a", ",", "b", "c")')).func).toMatchObject({ variadic: -1 });
  });

  it('adds fields for what MetricsQL has beyond PromQL', () => {
    const j = astToJson(parse('{a="1" or b="2"}'));
    expect(j).toMatchObject({ matchers: [{ name: 'a', value: '1', type: '=' }], matcherSets: [[{ name: 'a', value: '1', type: '=' }], [{ name: 'b', value: '2', type: '=' }]] });
    expect(astToJson(parse('rate(x[5i])'))).toMatchObject({ args: [{ range: null, rangeText: '5i' }] });
    expect(astToJson(parse('sum(x) limit 3'))).toMatchObject({ limit: 3 });
    expect(astToJson(parse('abs(x) keep_metric_names'))).toMatchObject({ keepMetricNames: true });
  });

  it('always gives plain JSON (no NaN, Infinity or undefined lost on the way)', () => {
    fc.assert(fc.property(fc.oneof(vector, scalar, str), (ast) => {
      const j = astToJson(ast);
      expect(JSON.parse(JSON.stringify(j))).toEqual(j);
    }), { numRuns: 1000 });
  });
});

describe('formatFixed', () => {
  it('spells floats without exponents, reading back as the same value', () => {
    const f = (v: number, want: string) => expect(formatFixed(v)).toBe(want);
    f(0, '0');
    f(-0, '-0');
    f(1.5, '1.5');
    f(1e21, '1000000000000000000000');
    f(-1.25e22, '-12500000000000000000000');
    f(1e-7, '0.0000001');
    f(-2.5e-8, '-0.000000025');
    f(NaN, 'NaN');
    f(Infinity, '+Inf');
    f(-Infinity, '-Inf');
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
      const s = formatFixed(v);
      expect(s).not.toMatch(/e/);
      expect(Object.is(Number(s), v)).toBe(true);
    }), { numRuns: 2000 });
  });
});
