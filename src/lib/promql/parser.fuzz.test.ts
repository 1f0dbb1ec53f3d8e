import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { parse } from './parser.ts';

// Fragments that make random input likely to reach deep parser states.
const FRAGMENTS = [
  'foo', 'sum', 'by', 'without', '(', ')', '{', '}', '[', ']', ':', ',', '=', '!=', '=~', '!~', '"a"', "'b'", '`c`',
  '5m', '1h30m', '5i', '1.5', '0x1f', 'Inf', 'NaN', '+', '-', '*', '/', '%', '^', '==', '>', 'bool', 'and', 'or',
  'unless', 'on', 'ignoring', 'group_left', 'group_right', 'offset', '@', 'start()', 'end()', 'rate', 'topk',
  'WITH', 'x', '=', 'step()', 'min_of', 'keep_metric_names', 'limit', 'default', 'if', '#', '\n', ' ', '"\\x', '\\',
];

const parseOrParseError = (q: string): void => {
  const start = performance.now();
  try {
    parse(q);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
  }
  expect(performance.now() - start).toBeLessThan(1000);
};

describe('parse (fuzz)', () => {
  it('returns an AST or throws ParseError for arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), parseOrParseError), { numRuns: 1500 });
  });

  it('returns an AST or throws ParseError for token soup', () => {
    const soup = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((a) => a.join(' '));
    const glued = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(fc.property(fc.oneof(soup, glued), parseOrParseError), { numRuns: 5000 });
  });

  it('survives deep nesting without a stack overflow escaping as another error', () => {
    parseOrParseError('('.repeat(5000) + '1' + ')'.repeat(5000));
    parseOrParseError('-'.repeat(5000) + '1');
  });
});
