import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { parseLockRequest, parseRestoreRequest } from './request-body.ts';

// Any body gives a value or a 400 ApiError: never another exception, never a hang.
describe('request body parsers (fuzz)', () => {
  const bodies = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.json({ maxDepth: 2 }),
    fc.record({ locked: fc.oneof(fc.boolean(), fc.string(), fc.integer()), backup: fc.oneof(fc.string(), fc.constant(null)) }).map((o) => JSON.stringify(o)),
  );
  it('return a request or throw a bad_request ApiError', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        for (const parse of [parseLockRequest, parseRestoreRequest]) {
          try {
            parse(body);
          } catch (err) {
            expect(err).toBeInstanceOf(ApiError);
            expect((err as ApiError).kind).toBe('bad_request');
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
