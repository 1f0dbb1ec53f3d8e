import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../../lib/backup/index.ts';
import { checkSnapshotDeleteResponse, deriveSnapshotDeleteUrl, parseSnapshotCreateResponse } from './snapshot-client.ts';

// The snapshot responses come from another process: any body gives a name or a ParseError.
describe('snapshot response parsers (fuzz)', () => {
  const bodies = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.json({ maxDepth: 2 }),
    fc.record({ status: fc.constantFrom('ok', 'error', 1), snapshot: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()), msg: fc.string() }).map((o) => JSON.stringify(o)),
  );
  it('return a safe snapshot name or throw ParseError', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        try {
          const name = parseSnapshotCreateResponse(body);
          expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/);
          expect(name.includes('..')).toBe(false);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
        try {
          checkSnapshotDeleteResponse(body);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('deriveSnapshotDeleteUrl returns an http URL or throws ParseError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string({ maxLength: 40 }), fc.webUrl().map((u) => `${u}/snapshot/create`)), (u) => {
        try {
          expect(deriveSnapshotDeleteUrl(u)).toMatch(/^https?:\/\/.*\/delete\/?(\?|#|$)/);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
