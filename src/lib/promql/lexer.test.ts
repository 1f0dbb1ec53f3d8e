import { describe, expect, it } from 'vitest';
import { tokenize } from './lexer.ts';

describe('tokenize', () => {
  const f = (src: string, want: string[]): void => {
    expect(tokenize(src).map((t) => `${t.kind}:${t.kind === 'string' ? t.str : t.kind === 'number' || t.kind === 'duration' ? `${t.num}${t.steps ? 'i' : ''}` : t.text}`)).toEqual(want);
  };

  it('splits operators, identifiers and literals', () => {
    f('foo{a!~"b"}', ['ident:foo', 'punct:{', 'ident:a', 'punct:!~', 'string:b', 'punct:}', 'eof:']);
    f('a>=b', ['ident:a', 'punct:>=', 'ident:b', 'eof:']);
    f('x # comment', ['ident:x', 'eof:']);
  });

  it('reads numbers and durations', () => {
    f('1.5e3', ['number:1500', 'eof:']);
    f('0x10', ['number:16', 'eof:']);
    f('1h30m', ['duration:5400', 'eof:']);
    f('100ms', ['duration:0.1', 'eof:']);
    f('1.1s', ['duration:1.1', 'eof:']);
    f('2Ki', ['number:2048', 'eof:']);
    f('5i', ['duration:5i', 'eof:']);
  });

  it('treats ":" inside brackets as a separator, outside as part of a name', () => {
    f('a:b[5m:1m]', ['ident:a:b', 'punct:[', 'duration:300', 'punct::', 'duration:60', 'punct:]', 'eof:']);
  });
});
