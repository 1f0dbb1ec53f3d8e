import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteBareSpecials } from './bare-specials.ts';

describe('quoteBareSpecials', () => {
  it('quotes bare special values outside strings only', () => {
    const f = (line: string, want: string | undefined) => expect(quoteBareSpecials(line)).toBe(want);
    f('[+Inf,-Inf,NaN]', '["+Inf","-Inf","NaN"]');
    f('[ inf , -infinity,Infinity,nan,-NaN,+nan ]', '[ "inf" , "-infinity","Infinity","nan","-NaN","+nan" ]');
    f('{"a":NaN}', '{"a":"NaN"}');
    // nothing to quote
    f('[1,2,null,"NaN"]', undefined);
    f('{"Inf":"NaN","x\\"Inf":"-Inf"}', undefined);
    // longer words are not special values
    f('[Infx,nancy,info,NaN_]', undefined);
    // a letter sequence inside a longer bare word (e.g. a number's exponent) is left alone
    f('[1eInf, xNaN]', undefined);
    // an unterminated string swallows the rest of the line
    f('["abc,NaN]', undefined);
  });

  it('keeps the line unchanged apart from the added quotes', () => {
    const token = fc.constantFrom('Inf', '-Inf', '+Inf', 'NaN', 'nan', 'Infinity', '1', '"NaN"', 'null', ',', '[', ']', ' ', '"x\\"y"', 'e', '-');
    fc.assert(fc.property(fc.array(token, { maxLength: 20 }), (ts) => {
      const line = ts.join('');
      const out = quoteBareSpecials(line);
      if (out === undefined) return;
      expect(out.replaceAll('"', '')).toBe(line.replaceAll('"', ''));
      expect(out.length).toBeGreaterThan(line.length);
    }), { numRuns: 500 });
  });
});
