import fc from 'fast-check';
import { expect, it } from 'vitest';
import { quoteBareSpecials } from './bare-specials.ts';

it('quotes bare NaN and Inf array elements only', () => {
  const f = (text: string, want: string | undefined) => expect(quoteBareSpecials(text)).toBe(want);
  f('{"values":[0.5,NaN,+Inf, -inf ,Infinity]}', '{"values":[0.5,"NaN","+Inf", "-inf" ,"Infinity"]}');
  f('[[NaN],[1,nan]]', '[["NaN"],[1,"nan"]]');
  f('{"values":[1,2]}', undefined);
  // strings (with escaped quotes), object values, other words and words glued to numbers stay
  f('{"m":{"a":"[NaN, \\"Inf"},"v":NaN}', undefined);
  f('[Nope,nul,1NaN,Inf1]', undefined);
  f('[', undefined);
});

it('lets JSON.parse read any array of numbers written with bare specials as with quoted ones', () => {
  const special = fc.constantFrom('NaN', 'nan', 'Inf', '+Inf', '-Inf', 'inf', 'Infinity', '-infinity');
  const element = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => ({ text: String(d), special: false })), special.map((text) => ({ text, special: true })));
  const blank = fc.constantFrom('', ' ', '\t', '\r\n');
  fc.assert(fc.property(fc.array(fc.tuple(element, blank), { minLength: 1, maxLength: 8 }), (items) => {
    const bare = `[${items.map(([e, b]) => `${b}${e.text}${b}`).join(',')}]`;
    const quoted = `[${items.map(([e]) => (e.special ? `"${e.text}"` : e.text)).join(',')}]`;
    const got = quoteBareSpecials(bare);
    expect(JSON.parse(got ?? bare)).toEqual(JSON.parse(quoted));
  }), { numRuns: 500 });
});

it('never throws and never changes text JSON.parse accepts', () => {
  fc.assert(fc.property(fc.json(), (text) => {
    expect(quoteBareSpecials(text)).toBeUndefined();
  }), { numRuns: 500 });
  fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'[]{}",:\\ NaInf+-0.e'.split('')), maxLength: 40 }), (text) => {
    quoteBareSpecials(text);
  }), { numRuns: 2000 });
});
