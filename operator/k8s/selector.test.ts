import { describe, expect, it } from 'vitest';
import { fromLabelSelector, matches, parseSelector, SelectorParseError, selectorString } from './selector.ts';

describe('parseSelector', () => {
  it('parses the text forms', () => {
    const f = (text: string, want: unknown) => expect(parseSelector(text), text).toEqual(want);
    f('', []);
    f('a=b', [{ key: 'a', operator: 'In', values: ['b'] }]);
    f('a==b, c!=d', [
      { key: 'a', operator: 'In', values: ['b'] },
      { key: 'c', operator: 'NotIn', values: ['d'] },
    ]);
    f('app.kubernetes.io/name in (x, y),!z,w', [
      { key: 'app.kubernetes.io/name', operator: 'In', values: ['x', 'y'] },
      { key: 'z', operator: 'DoesNotExist', values: [] },
      { key: 'w', operator: 'Exists', values: [] },
    ]);
    f('e notin (a)', [{ key: 'e', operator: 'NotIn', values: ['a'] }]);
  });

  it('rejects bad selectors with SelectorParseError', () => {
    const f = (text: string) => expect(() => parseSelector(text), text).toThrow(SelectorParseError);
    f('a=b,');
    f('a in (b');
    f('a in ((b))');
    f('-a=b');
    f('a=b c');
    f('a=-b');
  });

  it('round-trips through selectorString', () => {
    const f = (text: string) => expect(selectorString(parseSelector(text))).toBe(text);
    f('a=b,c!=d,e in (x,y),f notin (u,v),g,!h');
  });
});

describe('matches', () => {
  it('evaluates each operator', () => {
    const f = (sel: string, labels: Record<string, string>, want: boolean) => expect(matches(parseSelector(sel), labels), `${sel} ${JSON.stringify(labels)}`).toBe(want);
    f('', {}, true);
    f('a=b', { a: 'b' }, true);
    f('a=b', { a: 'c' }, false);
    f('a!=b', {}, true);
    f('a in (x,y)', { a: 'y' }, true);
    f('a notin (x,y)', { a: 'y' }, false);
    f('a', { a: '' }, true);
    f('!a', { a: '' }, false);
    f('a=b,c', { a: 'b' }, false);
  });

  it('treats an absent structured selector as matching nothing and {} as everything', () => {
    expect(fromLabelSelector(undefined)).toBeUndefined();
    expect(matches(fromLabelSelector({})!, { any: 'x' })).toBe(true);
    expect(matches(fromLabelSelector({ matchLabels: { t: 'a' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] })!, { t: 'a', env: 'prod' })).toBe(true);
  });
});
