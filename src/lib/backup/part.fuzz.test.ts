import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { parsePartKey, partKey } from './part.ts';

describe('parsePartKey (fuzz)', () => {
  it('returns a part that round-trips, or throws ParseError', () => {
    const hex = fc.stringMatching(/^[0-9A-Fa-f]{16}$/);
    const key = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.tuple(fc.string({ maxLength: 10 }), hex, hex, hex).map(([p, a, b, c]) => `${p}/${a}_${b}_${c}`),
    );
    fc.assert(
      fc.property(key, (k) => {
        try {
          const p = parsePartKey(k);
          expect(parsePartKey(partKey(p))).toEqual(p);
          expect(p.offset + p.size).toBeLessThanOrEqual(p.fileSize);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
