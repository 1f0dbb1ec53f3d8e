import { describe, expect, it } from 'vitest';
import { CelEvalError, CelParseError, evaluate, parseCel } from './index.ts';

const run = (src: string, self: unknown, oldSelf?: unknown) => {
  const env = new Map<string, unknown>([['self', self]]);
  if (oldSelf !== undefined) env.set('oldSelf', oldSelf);
  return evaluate(parseCel(src), env);
};

describe('CEL evaluate', () => {
  it('evaluates the operators and macros rules use', () => {
    const f = (src: string, self: unknown, want: unknown) => expect(run(src, self), src).toEqual(want);
    // field access, has, logical operators
    f('has(self.a) && self.a > 1', { a: 2 }, true);
    f('!has(self.a) || self.a > 1', {}, true);
    f('has(self.a) != has(self.b)', { a: 1 }, true);
    f('has(self.a) != has(self.b)', { a: 1, b: 2 }, false);
    // arithmetic and precedence
    f('1 + 2 * 3 == 7', {}, true);
    f('7 / 2', {}, 3);
    f('-self.x + 1', { x: 3 }, -2);
    f('(1 + 2) * 3', {}, 9);
    // strings
    f("self.d.startsWith('s3://')", { d: 's3://b' }, true);
    f("self.k.contains('=')", { k: 'a=b' }, true);
    f("self.v.matches('^[0-9]+%?$')", { v: '50%' }, true);
    f("'ab' + 'c'", {}, 'abc');
    f('size(self.s)', { s: 'héllo' }, 5);
    // lists, maps, in
    f("self.op in ['In', 'NotIn']", { op: 'NotIn' }, true);
    f("'a' in self", { a: 1 }, true);
    f('self.l.size()', { l: [1, 2] }, 2);
    f('self.l[1]', { l: [1, 2] }, 2);
    f("self.all(k, !k.startsWith('-'))", { a: '1', b: '2' }, true);
    f("self.all(k, !k.startsWith('-'))", { '-a': '1' }, false);
    f('self.l.exists(x, x > 1)', { l: [1, 2] }, true);
    f('self.l.exists_one(x, x > 0)', { l: [1, 2] }, false);
    f('self.l.map(x, x * 2)', { l: [1, 2] }, [2, 4]);
    f('self.l.filter(x, x > 1)', { l: [1, 2] }, [2]);
    f('{"a": 1}.a', {}, 1);
    // types and the int-or-string idiom
    f('type(self) == int', 3, true);
    f('type(self) == string', 3, false);
    f("type(self) == int || self.matches('^[0-9]+%$')", '10%', true);
    // ternary and equality of objects
    f("self.k == 'C' ? self.n > 1 : true", { k: 'C', n: 2 }, true);
    f('self == {"a": [1, {"b": 2}]}', { a: [1, { b: 2 }] }, true);
    f('int("42") + 1', {}, 43);
    f('string(5)', {}, '5');
  });

  it('compares with oldSelf in transition rules', () => {
    expect(run('self == oldSelf', { size: '1Gi' }, { size: '1Gi' })).toBe(true);
    expect(run('self == oldSelf', { size: '2Gi' }, { size: '1Gi' })).toBe(false);
  });

  it('absorbs errors where && and || decide without them', () => {
    const f = (src: string, self: unknown, want: unknown) => expect(run(src, self), src).toBe(want);
    f('self.missing > 1 || true', {}, true);
    f('self.missing > 1 && false', {}, false);
    f('true || self.missing', {}, true);
  });

  it('reports runtime errors as CelEvalError', () => {
    const f = (src: string, self: unknown) => expect(() => run(src, self), src).toThrow(CelEvalError);
    f('self.missing', {});
    f('self.missing > 1 || false', {});
    f('1 / 0', {});
    f("1 + 'a'", {});
    f('nosuch(1)', {});
    f('self.l[5]', { l: [] });
    f('unknownVar', {});
  });

  it('rejects malformed expressions with CelParseError', () => {
    const f = (src: string) => expect(() => parseCel(src), src).toThrow(CelParseError);
    f('');
    f('self.');
    f('has(self)');
    f("'unterminated");
    f('1 +');
    f('(1');
    f('a b');
    f('self.all(1, true)');
    f('#');
    f('"\\q"');
  });
});
