import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAnchored, RegexpSyntaxError } from './regexp.ts';

const PIECES = ['(', ')', '(?i)', '(?i:', '(?P<n>', '(?s)', '(?U)', '[', ']', '[^', '[[:alpha:]]', '[:', '\\', '\\Q', '\\E', '\\x{41}', '\\p{Greek}', '\\pL',
  '\\z', '\\A', '\\d', '*', '+', '?', '{2}', '{1,3}', '{,2}', '|', '^', '$', '.', 'a', '-', '/', '#', 'é'];

describe('compileAnchored (fuzz)', () => {
  it('compiles or throws RegexpSyntaxError for arbitrary patterns', () => {
    const pattern = fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.constantFrom(...PIECES), { maxLength: 15 }).map((a) => a.join('')));
    fc.assert(fc.property(pattern, (p) => {
      try {
        expect(compileAnchored(p)).toBeInstanceOf(RegExp);
      } catch (err) {
        expect(err).toBeInstanceOf(RegexpSyntaxError);
      }
    }), { numRuns: 3000 });
  });
});
