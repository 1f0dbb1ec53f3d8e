import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { formatRemoteUrl, parseRemoteUrl } from './remote-url.ts';

describe('parseRemoteUrl (fuzz)', () => {
  it('returns a URL that round-trips, or throws ParseError', () => {
    const prefixed = fc.tuple(fc.constantFrom('fs://', 's3://', 'gs://', 'azblob://', 'fs:///', 'x://', ''), fc.string({ maxLength: 40 }));
    fc.assert(
      fc.property(prefixed, ([p, rest]) => {
        let u;
        try {
          u = parseRemoteUrl(p + rest);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
          return;
        }
        expect(parseRemoteUrl(formatRemoteUrl(u))).toEqual(u);
      }),
      { numRuns: 3000 },
    );
  });
});
