import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CelEvalError, CelParseError, evaluate, parseCel } from './index.ts';

// Fragments biased towards CEL syntax so the fuzzer reaches deep parser states.
const fragment = fc.constantFrom('self', '.', 'a', 'has(', ')', '(', '[', ']', '{', '}', ',', ':', '?', '&&', '||', '!', '==', '<', '+', '-', '*', '/', '%', ' in ', '1', '2.5', "'s'", '"x"', 'true', 'null', '.all(x, ', '.size()', 'x', ' ');

describe('CEL parser fuzz', () => {
  it('returns an AST or throws CelParseError, never anything else', () => {
    const check = (src: string) => {
      try {
        parseCel(src);
      } catch (err) {
        expect(err).toBeInstanceOf(CelParseError);
      }
    };
    fc.assert(fc.property(fc.string({ maxLength: 80 }), check), { numRuns: 2000 });
    fc.assert(fc.property(fc.array(fragment, { maxLength: 40 }).map((a) => a.join('')), check), { numRuns: 3000 });
  });

  it('survives deep nesting without a stack overflow', () => {
    expect(() => parseCel('('.repeat(5000) + '1' + ')'.repeat(5000))).toThrow(CelParseError);
    expect(() => parseCel('!'.repeat(5000) + 'true')).toThrow(CelParseError);
  });

  it('evaluates parsed expressions to a value or CelEvalError', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }).map((a) => a.join('')), fc.jsonValue(), (src, self) => {
        let expr;
        try {
          expr = parseCel(src);
        } catch {
          return;
        }
        try {
          evaluate(expr, new Map([['self', self]]));
        } catch (err) {
          expect(err).toBeInstanceOf(CelEvalError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
