import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DoubleDigits } from './double-digits.ts';

describe('DoubleDigits', () => {
  // Each finite value comes out as String(v) spells it (-0 as "0"); a non-finite one as -1,
  // without disturbing the values after it.
  it('spells every value of a series in turn as String does', () => {
    const d = new DoubleDigits();
    const out = new Uint8Array(32);
    fc.assert(fc.property(fc.array(fc.double(), { maxLength: 50 }), (vs) => {
      d.reset(vs);
      for (const v of vs) {
        const end = d.copyNext(out, 3);
        if (Number.isFinite(v)) expect(Buffer.from(out.subarray(3, end)).toString()).toBe(Object.is(v, -0) ? '0' : String(v));
        else expect(end).toBe(-1);
      }
    }));
  });
});
