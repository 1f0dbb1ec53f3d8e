import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.ts';
import { ParseError } from './errors.ts';
import { parse } from './parser.ts';
import { print } from './printer.ts';

// Most cases compare the printed form of the parsed AST: it is canonical (spacing, parentheses
// only where needed, durations normalised), so it shows the structure compactly.
describe('parse', () => {
  const f = (query: string, want: string): void => {
    expect(print(parse(query))).toBe(want);
  };

  it('parses number literals', () => {
    f('12.34e6', '12340000');
    f('.2', '0.2');
    f('2.', '2');
    f('0x1F', '31');
    f('010', '8');
    f('-0.2e-6', '-2e-7');
    f('+Inf', 'Inf');
    f('inF', 'Inf');
    f('-inf', '-Inf');
    f('nan', 'NaN');
    f('1Ki', '1024');
    f('5m', '300');
    f('1h30m', '5400');
  });

  it('parses strings in every quote style', () => {
    f('"a\\"b"', '"a\\"b"');
    f("'a\\'b'", '"a\'b"');
    f('`a\\nb`', '"a\\\\nb"');
    f('"\\x41\\101\\u00e9\\U0001F600"', '"AAé😀"');
    f('"\\xc5"', '"\\xc5"');
  });

  it('parses selectors', () => {
    f('foo', 'foo');
    f('foo{}', 'foo');
    f('foo{a="b",c!="d",e=~"f.*",g!~"h",}', 'foo{a="b", c!="d", e=~"f.*", g!~"h"}');
    f('{__name__="foo"}', '{__name__="foo"}');
    f('{"foo.bar"}', '{"foo.bar"}');
    f('{"foo", "a.b"="c"}', 'foo{"a.b"="c"}');
    f('foo{a="b" or c="d"}', 'foo{a="b" or c="d"}');
    f('sum', 'sum');
    f('{"inf"}', '{"inf"}');
    f('foo:bar:baz', 'foo:bar:baz');
  });

  it('parses range selectors, offsets, @ and subqueries', () => {
    f('foo[5m]', 'foo[5m]');
    f('foo[5m] offset 1h', 'foo[5m] offset 1h');
    f('foo offset -1h', 'foo offset -1h');
    f('foo @ 100 offset 5m', 'foo offset 5m @ 100');
    f('foo[1m] @ start()', 'foo[1m] @ start()');
    f('foo @ end()', 'foo @ end()');
    f('foo[5m:1m]', 'foo[5m:1m]');
    f('foo[5m:]', 'foo[5m:]');
    f('rate(foo[5m])[30m:1m] offset 1h', 'rate(foo[5m])[30m:1m] offset 1h');
    f('(a + b)[5m:]', '(a + b)[5m:]');
    f('foo[5i]', 'foo[5i]');
    f('foo[1.5m]', 'foo[1m30s]');
    f('foo[5m] anchored', 'foo[5m] anchored');
    f('foo[5m] offset 1m smoothed', 'foo[5m] offset 1m smoothed');
    f('foo @ 100 smoothed', 'foo @ 100 smoothed');
  });

  it('parses duration expressions', () => {
    f('foo[26m+4m]', 'foo[26m + 4m]');
    f('foo[1800]', 'foo[30m]');
    f('foo[2m*(10+5)]', 'foo[2m * (10s + 5s)]');
    f('foo[-5m+35m]', 'foo[-5m + 35m]');
    f('foo[1+(STep()-5)*2]', 'foo[1s + (step() - 5s) * 2s]');
    f('foo[min_of(step()+1,1h)]', 'foo[min_of(step() + 1s, 1h)]');
    f('foo offset -step()*2', 'foo offset (-(step())) * 2');
    f('foo offset (100 + 2)', 'foo offset (1m40s + 2s)');
    f('foo offset 100 + 2', 'foo offset 1m40s + 2');
    f('foo offset -2 ^ 2', 'foo offset -2s ^ 2');
    f('foo offset (-2 ^ 2)', 'foo offset (-(2s ^ 2s))');
  });

  it('applies operator precedence and associativity', () => {
    f('1 + 2 * 3', '1 + 2 * 3');
    f('(1 + 2) * 3', '(1 + 2) * 3');
    f('2 ^ 3 ^ 2', '2 ^ 3 ^ 2');
    f('(2 ^ 3) ^ 2', '(2 ^ 3) ^ 2');
    f('-1 ^ 2', '-1 ^ 2');
    f('(-1) ^ 2', '(-1) ^ 2');
    f('-a * b', '-a * b');
    f('-(a * b)', '-(a * b)');
    f('-(1)', '-(1)');
    f('a - -1', 'a - -1');
    f('a or b and c', 'a or b and c');
    f('(a or b) and c', '(a or b) and c');
    f('a > bool 1 == bool 0', 'a > bool 1 == bool 0');
    f('a atan2 b', 'a atan2 b');
    f('a default b if c', 'a default b if c');
    f('a AND b', 'a and b');
  });

  it('parses vector matching', () => {
    f('a + on(x, y) b', 'a + on(x, y) b');
    f('a * ignoring(x) group_left(y) b', 'a * ignoring(x) group_left(y) b');
    f('a * on(x) group_right b', 'a * on(x) group_right() b');
    f('a and on(x) b', 'a and on(x) b');
    f('1 + on() 2', '1 + 2');
  });

  it('parses aggregations in every form', () => {
    f('sum by (a) (x)', 'sum by (a)(x)');
    f('sum(x) by (a)', 'sum by (a)(x)');
    f('SUM without () (x)', 'sum without ()(x)');
    f('topk(3, x)', 'topk(3, x)');
    f('count_values("v", x)', 'count_values("v", x)');
    f('sum(x) by (a) limit 5', 'sum by (a)(x) limit 5');
    f('sum by ("foo.bar") (x)', 'sum by ("foo.bar")(x)');
    f('quantiles("q", 0.5, 0.9, x)', 'quantiles("q", 0.5, 0.9, x)');
  });

  it('parses function calls', () => {
    f('rate(x[5m])', 'rate(x[5m])');
    f('RATE(x[5m])', 'rate(x[5m])');
    f('rate(x)', 'rate(x)');
    f('time()', 'time()');
    f('round(x, 5)', 'round(x, 5)');
    f('label_replace(x, "a", "$1", "b", "(.*)")', 'label_replace(x, "a", "$1", "b", "(.*)")');
    f('rate(x[5m]) keep_metric_names', 'rate(x[5m]) keep_metric_names');
    f('hour()', 'hour()');
  });

  it('skips comments and whitespace', () => {
    f('foo # comment\n + bar', 'foo + bar');
  });

  it('expands WITH templates', () => {
    f('WITH (x = foo{a="b"}) x + 1', 'foo{a="b"} + 1');
    f('with (x = foo{a="b"}) x{c="d"}', 'foo{a="b", c="d"}');
    f('WITH (f = {a="b"}) m{f, c="d"}', 'm{a="b", c="d"}');
    f('WITH (f(a, b) = a + b) f(x, 2)', 'x + 2');
    f('WITH (x = 1, y = x + 1) y * 2', '(1 + 1) * 2');
    f('WITH (s = "v") label_set(m, "l", s)', 'label_set(m, "l", "v")');
    f('WITH (x = a) WITH (x = b) x', 'b');
    f('WITH (f(x) = x * 2, g(y) = f(y) + 1) g(m)', 'm * 2 + 1');
    f('WITH (r = rate(m[5m])) sum(r)', 'sum(rate(m[5m]))');
  });
});

describe('parse errors', () => {
  const f = (query: string, want: string): void => {
    let err: unknown;
    try {
      parse(query);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ParseError);
    expect((err as ParseError).message).toBe(want);
  };

  it('names the position and what was expected', () => {
    f('foo{a="b"', 'unexpected end of input at 1:10, expected "," or "}" in label matchers');
    f('foo{a="b",,}', 'unexpected "," at 1:11, expected label name');
    f('foo{a=}', 'unexpected "}" at 1:7, expected label value as a quoted string');
    f('foo{a~"b"}', 'unexpected character "~" at 1:6');
    f('sum(x', 'unexpected end of input at 1:6, expected "," or ")" in argument list');
    f('foo bar', 'unexpected "bar" at 1:5, expected binary operator or end of input');
    f('\n  foo +', 'unexpected end of input at 2:8, expected expression');
    f('foo[5m', 'unexpected end of input at 1:7, expected ":" or "]" in range');
    f('"abc', 'unterminated quoted string at 1:1');
  });

  it('rejects bad literals', () => {
    f('1m5', 'bad duration "1m5" at 1:1');
    f('5x', 'bad number or duration "5x" at 1:1');
    f('1e', 'bad number "1e" at 1:1');
    f('"\\q"', 'unknown escape sequence "\\q" at 1:2');
    f('1m1h', 'bad duration "1m1h": units out of order at 1:1');
    f('5i', 'step-based duration "5i" is only allowed in ranges and offsets at 1:1');
  });

  it('rejects invalid selectors', () => {
    f('{}', 'vector selector must contain at least one non-empty matcher at 1:1');
    f('{a=""}', 'vector selector must contain at least one non-empty matcher at 1:1');
    f('foo{__name__="bar"}', 'metric name must not be set twice: "foo" or "bar" at 1:1');
    f('foo{a=~"("}', 'invalid regular expression "(": missing closing ) in regexp "(" at 1:8');
    f('foo{a:b="c"}', 'unexpected "a:b" at 1:5, expected label name');
    f('(foo)[5m]', 'ranges only allowed for vector selectors at 1:6');
    f('foo offset 5m [5m]', 'no offset, @ or smoothed modifiers allowed before range at 1:15');
    f('foo anchored', 'anchored is only allowed on range selectors at 1:5');
    f('foo[1m] anchored smoothed', 'smoothed may not be combined with anchored at 1:18');
    f('foo offset 1m offset 2m', 'offset may not be set multiple times at 1:15');
    f('1 offset 1m', 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery at 1:3');
  });

  it('type-checks operators and calls', () => {
    f('1 and 2', 'set operator "and" not allowed in binary scalar expression at 1:3');
    f('1 > 2', 'comparisons between scalars must use BOOL modifier at 1:3');
    f('a + bool b', 'bool modifier can only be used on comparison operators at 1:5');
    f('a and on(x) group_left b', 'no grouping allowed for "and" operation at 1:3');
    f('a + on(x) group_left(x) b', 'label "x" must not occur in ON and GROUP clause at once at 1:3');
    f('foo[5m] + 1', 'binary expression must contain only scalar and instant vector types at 1:9');
    f('rate(1)', 'expected type range vector in call to function "rate", got scalar at 1:1');
    f('abs(foo[5m])', 'expected type instant vector in call to function "abs", got range vector at 1:1');
    f('clamp(foo)', 'wrong number of arguments for function "clamp": expected 3, got 1 at 1:1');
    f('nosuch(foo)', 'unknown function with name "nosuch" at 1:1');
    f('topk(foo)', 'wrong number of arguments for aggregation "topk": expected 2, got 1 at 1:1');
    f('sum(1)', 'expected type instant vector in aggregation "sum", got scalar at 1:1');
    f('-"a"', 'unary expression only allowed on expressions of type scalar or instant vector at 1:1');
    f('1[5m:]', 'subquery is only allowed on instant vector, got scalar at 1:2');
  });

  it('guards WITH templates', () => {
    f('WITH (f(x) = f(x)) f(1)', 'unknown function with name "f" at 1:14');
    f('WITH (x = 1, x = 2) x', 'duplicate template name "x" in WITH at 1:14');
    f('WITH (f(a) = a) f(1, 2)', 'template "f" expects 1 arguments, got 2 at 1:17');
  });
});

describe('parse AST shape', () => {
  const f = (query: string, want: Expr): void => {
    expect(parse(query)).toEqual(want);
  };

  it('keeps the selector name apart from the matchers', () => {
    f('foo{a="b"} offset 5m', {
      type: 'VectorSelector', name: 'foo', matcherSets: [[{ name: 'a', op: '=', value: 'b' }]],
      offset: { type: 'DurationLiteral', value: 300, unit: 's' }, at: null, extended: null,
    });
  });

  it('folds a sign into the number literal it precedes', () => {
    f('-1', { type: 'NumberLiteral', value: -1 });
    f('-(1)', { type: 'UnaryExpr', op: '-', expr: { type: 'NumberLiteral', value: 1 } });
  });

  it('keeps invalid UTF-8 bytes as escaped surrogates', () => {
    f('"a\\xc5z"', { type: 'StringLiteral', value: 'a\udcc5z' });
  });
});
