import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { parseBackupMetadata } from './markers.ts';

describe('parseBackupMetadata (fuzz)', () => {
  it('returns metadata or throws ParseError', () => {
    const input = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.json(),
      fc.record({ created_at: fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())), completed_at: fc.string() }).map((o) => JSON.stringify(o)),
    );
    fc.assert(
      fc.property(input, (text) => {
        try {
          const m = parseBackupMetadata(text);
          expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
