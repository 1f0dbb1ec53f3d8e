import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forcedArgsFromSearch, mergeQueryArgs, QueryError } from './query-args.ts';

const piece = fc.constantFrom('extra_label', 'extra%5Flabel', 'extra%5flabel', 'extra+label', 'q', '%', '%zz', '=', '&', 'x', '%3D', '+');

describe('mergeQueryArgs (fuzz)', () => {
  it('never lets a client arg whose decoded name is forced through; only QueryError on bad input', () => {
    const f = forcedArgsFromSearch(new URLSearchParams('extra_label=tenant%3Da'));
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }).map((a) => a.join('')), (client) => {
      let out: string;
      try {
        out = mergeQueryArgs(client, f);
      } catch (err) {
        expect(err).toBeInstanceOf(QueryError);
        return;
      }
      // As a backend decodes it, exactly one extra_label arg remains: the forced one.
      const values = new URLSearchParams(out).getAll('extra_label');
      expect(values).toEqual(['tenant=a']);
    }), { numRuns: 3000 });
  });
});
