import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScriptError } from './script-error.ts';
import { parseScript } from './script.ts';

const PIECES = ['load 5m', 'load_with_nhcb 1m', 'clear', 'eval instant at 5m', 'eval range from 0 to 10m step 1m', 'expect fail', 'expect ordered',
  'expect string "x"', 'expect range vector from 0 to 1m step 10s', 'm{a="b"}', '{}', '1+1x3', '_x2', 'stale', 'NaN', '{{count:1}}', 'sum(m)', '\n', '  ', '#', '"', '{', '1'];

describe('parseScript (fuzz)', () => {
  it('returns commands or throws ScriptError for arbitrary scripts', () => {
    const script = fc.oneof(fc.string({ maxLength: 80 }), fc.array(fc.constantFrom(...PIECES), { maxLength: 25 }).map((a) => a.join(' ')));
    fc.assert(fc.property(script, (text) => {
      try {
        parseScript(text);
      } catch (err) {
        expect(err).toBeInstanceOf(ScriptError);
      }
    }), { numRuns: 2000 });
  });
});
