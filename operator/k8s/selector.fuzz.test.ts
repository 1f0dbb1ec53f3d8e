import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSelector, SelectorParseError } from './selector.ts';

const piece = fc.constantFrom('a', 'b.c/d', '=', '==', '!=', '!', ',', ' in ', ' notin ', '(', ')', ' ', 'x', '-', '_', '1');

describe('parseSelector fuzz', () => {
  it('returns requirements or throws SelectorParseError', () => {
    const check = (text: string) => {
      try {
        parseSelector(text);
      } catch (err) {
        expect(err).toBeInstanceOf(SelectorParseError);
      }
    };
    fc.assert(fc.property(fc.string({ maxLength: 60 }), check), { numRuns: 2000 });
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }).map((p) => p.join('')), check), { numRuns: 2000 });
  });
});
