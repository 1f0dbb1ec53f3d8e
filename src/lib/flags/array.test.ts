import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitArrayValue } from './array.ts';

describe('splitArrayValue', () => {
  it('splits on commas outside quotes', () => {
    const f = (text: string, want: string[]) => expect(splitArrayValue(text)).toEqual(want);
    f('a', ['a']);
    f('a,b,c', ['a', 'b', 'c']);
    f('', ['']);
    f('a,,b', ['a', '', 'b']);
    // quoted elements may hold commas
    f('"a,b",c', ['a,b', 'c']);
    f("'x,y','z'", ['x,y', 'z']);
    f('"say \\"hi\\", ok"', ['say "hi", ok']);
    f('name="value"', ['name="value"']);
  });

  it('rejects an unterminated quote or junk after a quoted element', () => {
    const f = (text: string) => expect(() => splitArrayValue(text)).toThrow(/cannot parse array value/);
    f('"abc');
    f('"a"b');
  });

  it('joins back to elements without commas or quotes unchanged', () => {
    const plain = fc.string().filter((s) => !/[,"']/.test(s));
    fc.assert(fc.property(fc.array(plain, { minLength: 1 }), (parts) => {
      expect(splitArrayValue(parts.join(','))).toEqual(parts);
    }));
  });

  it('never throws anything but an Error', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        splitArrayValue(s);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});
