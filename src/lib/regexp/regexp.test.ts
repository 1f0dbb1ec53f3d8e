import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAnchored, quoteMeta, RegexpSyntaxError, translateRegexp } from './regexp.ts';

describe('compileAnchored', () => {
  const f = (re: string, input: string, want: boolean): void => {
    expect(compileAnchored(re).test(input)).toBe(want);
  };

  it('anchors fully and lets dot match newlines', () => {
    f('a', 'a', true);
    f('a', 'ab', false);
    f('a|b', 'b', true);
    f('.*', 'x\ny', true);
    f('', '', true);
  });

  it('supports RE2 flag groups', () => {
    f('(?i:PRO).*', 'production', true);
    f('((?i)PRO).*', 'production', true);
    f('.*((?i)DUC).*', 'production', true);
    f('(?i)abc', 'ABC', true);
    f('a(?i)b', 'AB', false);
    f('a(?i)b', 'aB', true);
    f('(?s).', '\n', true);
  });

  it('supports RE2-only syntax', () => {
    f('[[:alpha:]]+', 'abc', true);
    f('[[:digit:]]+', 'a1', false);
    f('\\Qa.b\\E', 'a.b', true);
    f('\\Qa.b\\E', 'axb', false);
    f('(?P<x>a)b', 'ab', true);
    f('\\x{41}', 'A', true);
    f('a\\#b', 'a#b', true);
    f('a\\z', 'a', true);
    f('\\pL+', 'été', true);
    f('\\p{Greek}', 'α', true);
    f('a{,3}', 'a{,3}', true);
    f('x{2}', 'xx', true);
    f('a*?b', 'aab', true);
    f('[a\\-z]', '-', true);
    f('\\101', 'A', true);
  });
});

describe('translateRegexp errors', () => {
  const f = (re: string, want: string): void => {
    expect(() => translateRegexp(re)).toThrow(RegexpSyntaxError);
    expect(() => translateRegexp(re)).toThrow(want);
  };

  it('rejects what RE2 rejects', () => {
    f('(', 'missing closing )');
    f(')', 'unexpected )');
    f('*a', 'missing argument to repetition operator');
    f('a**', 'invalid nested repetition operator');
    f('[a', 'missing closing ]');
    f('\\1', 'backreferences are not supported');
    f('a{1001}', 'invalid repeat count');
    f('(?U)a', 'ungreedy flag');
    f('\\q', 'invalid escape sequence');
  });
});

describe('quoteMeta', () => {
  it('makes any text match itself literally, as RE2 and as a JavaScript RegExp', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (s, other) => {
      const q = quoteMeta(s);
      expect(compileAnchored(q).test(s)).toBe(true);
      expect(new RegExp(`^${q}$`, 'su').test(s)).toBe(true);
      expect(compileAnchored(q).test(other)).toBe(other === s);
    }));
  });
});
