import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SHORT_DECIMAL_CHARS, ShortDecimals } from './short-decimal.ts';

// Each value ShortDecimals writes must read exactly as String(v); what it declines (-1) the
// caller spells another way, so declining is always allowed but writing a wrong digit never is.
function spell(d: ShortDecimals, v: number): string | undefined {
  const out = new Uint8Array(3 + MAX_SHORT_DECIMAL_CHARS + 3).fill(120);
  const end = d.write(out, 3, v);
  if (end < 0) {
    expect(out.every((b) => b === 120)).toBe(true); // nothing written
    return undefined;
  }
  expect(end - 3).toBeLessThanOrEqual(MAX_SHORT_DECIMAL_CHARS);
  expect(out[end]).toBe(120); // nothing past the end
  return Buffer.from(out.subarray(3, end)).toString('latin1');
}

// A decimal m·10^-k as a double, the way stored decimals come back from the storage.
const decimal = fc.tuple(fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), fc.integer({ min: 0, max: 21 })).map(([m, k]) => m / 10 ** k);
const smallDecimal = fc.tuple(fc.integer({ min: -99_999_999, max: 99_999_999 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => m / 10 ** k);

describe('ShortDecimals', () => {
  it('spells what it writes exactly as String does', () => {
    const d = new ShortDecimals();
    fc.assert(fc.property(fc.oneof(fc.double(), decimal, smallDecimal), (v) => {
      const s = spell(d, v);
      if (s !== undefined) expect(s).toBe(String(v));
    }), { numRuns: 20_000 });
  });

  it('spells series whose values change their number of decimals', () => {
    const d = new ShortDecimals();
    fc.assert(fc.property(fc.array(fc.oneof(decimal, smallDecimal, fc.double({ min: -1e16, max: 1e16 })), { maxLength: 40 }), (vs) => {
      d.reset();
      for (const v of vs) {
        const s = spell(d, v);
        if (s !== undefined) expect(s).toBe(String(v));
      }
    }), { numRuns: 2_000 });
  });

  it('writes every plain decimal of up to 15 digits from 1e-6 to 1e15', () => {
    const d = new ShortDecimals();
    fc.assert(fc.property(decimal, (v) => {
      const a = Math.abs(v);
      const digits = String(a).replace('.', '').replace(/^0+/, '').length;
      if (a >= 1e-6 && a < 1e15 && digits <= 15) expect(spell(d, v)).toBe(String(v));
    }), { numRuns: 20_000 });
  });

  it('handles the edges of its range and what it declines', () => {
    const d = new ShortDecimals();
    const cases: Array<[number, string | undefined]> = [
      [1e-6, '0.000001'], [-1e-6, '-0.000001'], [9.99e-7, undefined], [123456789012345, '123456789012345'],
      [999999999999999, '999999999999999'], [1e15, undefined], [0.1, '0.1'], [0.30000000000000004, undefined],
      [12345.678, '12345.678'], [1.5, '1.5'], [100, '100'], [1234567890.5, '1234567890.5'], [0.000123, '0.000123'],
      [10.000001, '10.000001'], [0, undefined], [-0, undefined], [NaN, undefined], [Infinity, undefined], [-Infinity, undefined],
      [5e-324, undefined], [Number.MAX_VALUE, undefined], [Math.PI, undefined],
    ];
    for (const [v, want] of cases) {
      d.reset();
      expect(spell(d, v), String(v)).toBe(want);
    }
    // The guessed number of decimals (3 from 1.125) must not stick: 1.5 is "1.5", 2 is "2".
    d.reset();
    expect([1.125, 1.5, 2, 0.25, 3.1].map((v) => spell(d, v))).toEqual(['1.125', '1.5', '2', '0.25', '3.1']);
  });
});
