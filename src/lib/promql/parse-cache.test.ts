import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scalar, str, vector } from './_arbitrary.ts';
import { ParseError } from './errors.ts';
import { ParseCache } from './parse-cache.ts';
import { parse } from './parser.ts';
import { print } from './printer.ts';

// outcome is parse's answer for text: its AST, or the error message it throws.
function outcome(f: (q: string) => unknown, text: string): unknown {
  try {
    return { ast: f(text) };
  } catch (err) {
    return { error: (err as Error).constructor.name, message: (err as Error).message };
  }
}

describe('ParseCache', () => {
  it('answers as parse does, first and again, for valid and malformed texts', () => {
    const cache = new ParseCache({ maxEntries: 50, maxQueryLength: 4096 });
    const text = fc.oneof(fc.oneof(vector, scalar, str).map(print), fc.string({ maxLength: 20 }), fc.constantFrom('up{', 'sum(', 'rate(x[5m])', '1 +'));
    fc.assert(fc.property(text, (q) => {
      const want = outcome(parse, q);
      expect(outcome((t) => cache.parse(t), q)).toEqual(want);
      expect(outcome((t) => cache.parse(t), q)).toEqual(want);
    }), { numRuns: 1000 });
    expect(cache.size).toBeLessThanOrEqual(50);
  });

  it('returns the same AST for the same text, and keeps no failed parse', () => {
    const cache = new ParseCache({ maxEntries: 10, maxQueryLength: 4096 });
    const a = cache.parse('sum by (job) (rate(x{a="b"}[5m]))');
    expect(cache.parse('sum by (job) (rate(x{a="b"}[5m]))')).toBe(a);
    expect(() => cache.parse('sum(')).toThrow(ParseError);
    expect(() => cache.parse('sum(')).toThrow(ParseError);
    expect(cache.size).toBe(1);
  });

  it('drops the oldest text beyond maxEntries and does not keep texts beyond maxQueryLength', () => {
    const cache = new ParseCache({ maxEntries: 3, maxQueryLength: 10 });
    const first = cache.parse('a');
    for (const q of ['b', 'c', 'd']) cache.parse(q);
    expect(cache.size).toBe(3);
    expect(cache.parse('a')).not.toBe(first);
    expect(cache.parse('a')).toEqual(first);
    const long = 'x{a="bcdefgh"}';
    const e = cache.parse(long);
    expect(cache.parse(long)).not.toBe(e);
    expect(cache.size).toBe(3);
    expect(new ParseCache({ maxEntries: 0, maxQueryLength: 10 }).parse('a')).toEqual(first);
  });
});
