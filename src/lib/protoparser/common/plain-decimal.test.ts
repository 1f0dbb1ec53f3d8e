import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PLAIN_DECIMAL_CHARS, PlainDecimals } from './plain-decimal.ts';

// Each value PlainDecimals writes must read exactly as String(v) (the reference: V8's shortest
// round-trip spelling); what it declines (-1) the caller spells another way, so declining is
// allowed outside its range, but writing a wrong digit never is.
function spell(d: PlainDecimals, v: number): string | undefined {
  const out = new Uint8Array(3 + MAX_PLAIN_DECIMAL_CHARS + 3).fill(120);
  const end = d.write(out, 3, [v], 0);
  if (end < 0) {
    expect(out.every((b) => b === 120)).toBe(true); // nothing written
    return undefined;
  }
  expect(end - 3).toBeLessThanOrEqual(MAX_PLAIN_DECIMAL_CHARS);
  expect(out[end]).toBe(120); // nothing past the end
  return Buffer.from(out.subarray(3, end)).toString('latin1');
}

const inRange = (v: number): boolean => Math.abs(v) >= 1e-6 && Math.abs(v) < 1e15;

// A decimal m·10^-k as a double, the way stored decimals come back from the storage.
const decimal = fc.tuple(fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), fc.integer({ min: 0, max: 21 })).map(([m, k]) => m / 10 ** k);
const smallDecimal = fc.tuple(fc.integer({ min: -99_999_999, max: 99_999_999 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => m / 10 ** k);
// Values of 16-17 digits as queries compute them: rates, ratios, averages, in every decade of the range.
const computed = fc.tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -6, max: 14 }), fc.boolean()).map(([m, e, neg]) => (neg ? -1 : 1) * m * 10 ** e);
// Dyadic values (ratios of byte counts that are multiples of 4096, fractions of powers of two):
// their exact decimal expansions end in 5, so two candidates can be equally near.
const dyadic = fc.tuple(fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 0, max: 45 })).map(([m, e]) => m / 2 ** e);
// Neighbours of a value: the doubles a few units in the last place away.
const neighbour = fc.tuple(fc.oneof(computed, decimal, dyadic), fc.integer({ min: -3, max: 3 })).map(([v, steps]) => {
  const bits = new BigInt64Array(new Float64Array([v]).buffer);
  bits[0] = bits[0]! + BigInt(steps);
  return new Float64Array(bits.buffer)[0]!;
});

describe('PlainDecimals', () => {
  it('spells what it writes exactly as String does, and declines only out of its range', () => {
    const d = new PlainDecimals();
    fc.assert(fc.property(fc.oneof(fc.double(), decimal, smallDecimal, computed, dyadic, neighbour), (v) => {
      const s = spell(d, v);
      if (s !== undefined) expect(s).toBe(String(v));
      else if (v !== 0 && inRange(v)) expect.fail(`declined ${String(v)}`);
    }), { numRuns: 50_000 });
  });

  it('spells series whose values change their number of digits and decimals', () => {
    const d = new PlainDecimals();
    fc.assert(fc.property(fc.array(fc.oneof(decimal, smallDecimal, computed, dyadic, fc.double({ min: -1e16, max: 1e16 })), { maxLength: 40 }), (vs) => {
      d.reset();
      for (const v of vs) {
        const s = spell(d, v);
        if (s !== undefined) expect(s).toBe(String(v));
      }
    }), { numRuns: 2_000 });
  });

  it('handles the edges of its range, ties and what it declines', () => {
    const d = new PlainDecimals();
    const cases: Array<[number, string | undefined]> = [
      [1e-6, '0.000001'], [-1e-6, '-0.000001'], [9.99e-7, undefined], [1.0000000000000002e-6, '0.0000010000000000000002'],
      [123456789012345, '123456789012345'], [999999999999999, '999999999999999'], [999999999999999.9, '999999999999999.9'],
      [1e15, undefined], [0.1, '0.1'], [0.30000000000000004, '0.30000000000000004'], [0.9999999999999999, '0.9999999999999999'],
      [1.0000000000000002, '1.0000000000000002'], [0.0009999999999999998, '0.0009999999999999998'], [100.00000000000001, '100.00000000000001'],
      [12345.678, '12345.678'], [1.5, '1.5'], [100, '100'], [1234567890.5, '1234567890.5'], [0.000123, '0.000123'],
      [10.000001, '10.000001'], [Math.PI, '3.141592653589793'], [-1 / 3, '-0.3333333333333333'], [123456789.12345679, '123456789.12345679'],
      [2 ** -19, '0.0000019073486328125'],
      // Ties: two 16-digit candidates (…60.37 and …60.38), two 17-digit ones (…312 and …313): the even one.
      [91340402284660.375, '91340402284660.38'], [212902455007244.125, '212902455007244.12'], [0.245655059814453125, '0.24565505981445312'],
      [0, undefined], [-0, undefined], [NaN, undefined], [Infinity, undefined], [-Infinity, undefined],
      [5e-324, undefined], [Number.MAX_VALUE, undefined],
    ];
    for (const [v, want] of cases) {
      d.reset();
      expect(spell(d, v), String(v)).toBe(want);
    }
    // The guessed number of decimals (3 from 1.125) must not stick: 1.5 is "1.5", 2 is "2";
    // nor the guess after a long value.
    d.reset();
    expect([1.125, 1.5, 2, 0.25, 3.1, 1 / 3, 0.5, 2 / 3, 40].map((v) => spell(d, v))).toEqual(['1.125', '1.5', '2', '0.25', '3.1', '0.3333333333333333', '0.5', '0.6666666666666666', '40']);
  });
});
