import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseFloatText } from './float.ts';
import { readDecimal, readInteger } from './float-bytes.ts';

// read returns [value, end] of readDecimal over the bytes of s (end -1: left to the text parser).
const read = (s: string): [number, number] => {
  const out = new Float64Array([NaN, NaN]);
  const e = readDecimal(Buffer.from(s, 'latin1'), 0, out, 1);
  return [e < 0 ? NaN : out[1]!, e];
};
const textValue = (s: string): number | undefined => {
  try {
    return parseFloatText(s);
  } catch {
    return undefined;
  }
};

describe('readDecimal', () => {
  it('reads the numbers of the one-operation subset', () => {
    expect(read('1.5')).toEqual([1.5, 3]);
    expect(read('-0.25e2 ')).toEqual([-25, 7]);
    expect(Object.is(read('-0')[0], -0)).toBe(true);
    expect(read('+7}')).toEqual([7, 2]);
  });
  it('reads numbers spelled with every digit of a float64 exactly, as the text parser does', () => {
    for (const s of ['0.022823387812823056', '-1.2307263445109203e-8', '4.022187655791625e-7', '9007199254740993', '123456789012345678901234567890', '1e-30', '1e300', '-5e-324']) {
      const [v, e] = read(s);
      expect(e).toBe(s.length);
      expect(Object.is(v, parseFloatText(s))).toBe(true);
    }
  });
  it('stops where the number ends, for the caller to check', () => {
    expect(read('0x10')).toEqual([0, 1]);
    expect(read('5_0')).toEqual([5, 1]);
  });
  it('leaves to the text parser what it does not read', () => {
    for (const s of ['', '-', '.', 'NaN', '+Inf', '1e', '1e1234', `${'1'.repeat(70)}`]) expect(read(s)[1]).toBe(-1);
  });
  it('reads every float64 as String() spells it, and agrees with the text parser on any decimal text', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
      const s = String(d);
      const [v, e] = read(s);
      expect(e).toBe(s.length);
      expect(Object.is(v, Object.is(d, -0) ? 0 : d)).toBe(true); // String(-0) is "0"
    }), { numRuns: 2000 });
    const decimal = fc.tuple(fc.constantFrom('', '-', '+'), fc.stringMatching(/^[0-9]{0,30}$/), fc.option(fc.stringMatching(/^\.[0-9]{0,30}$/)), fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{0,4}$/)))
      .map(([sign, int, frac, exp]) => `${sign}${int}${frac ?? ''}${exp ?? ''}`);
    fc.assert(fc.property(decimal, (s) => {
      const [v, e] = read(s);
      if (e < 0) return;
      expect(e).toBe(s.length);
      const want = textValue(s);
      expect(want).toBeDefined();
      expect(Object.is(v, want)).toBe(true);
    }), { numRuns: 3000 });
  });
});

describe('readInteger', () => {
  it('reads at most 15 digits with the signs allowed', () => {
    const out = new Float64Array(2);
    expect(readInteger(Buffer.from('-12 '), 0, out, 1, 'minus')).toBe(3);
    expect(out[1]).toBe(-12);
    expect(out[0]).toBe(0);
    expect(readInteger(Buffer.from('+12'), 0, out, 0, 'minus')).toBe(-1);
    expect(readInteger(Buffer.from('1234567890123456'), 0, out, 0, 'both')).toBe(-1);
  });
});
