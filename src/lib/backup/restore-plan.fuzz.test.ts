import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptBackupError } from './errors.ts';
import { formatPartName } from './part.ts';
import { planRestore } from './restore-plan.ts';

describe('planRestore (fuzz)', () => {
  it('returns files whose parts tile them exactly, or throws CorruptBackupError', () => {
    const entry = fc.record({
      file: fc.constantFrom('a', 'b', 'd/c', 'd'),
      fileSize: fc.integer({ min: 0, max: 40 }),
      offset: fc.integer({ min: 0, max: 40 }),
      size: fc.integer({ min: 0, max: 40 }),
      sizeDelta: fc.constantFrom(0, 0, 0, 1),
      raw: fc.option(fc.string({ maxLength: 12 }), { freq: 8 }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        const listing = entries.map((e) =>
          e.raw !== null ? { path: e.raw, size: e.size } : { path: `${e.file}/${formatPartName(e)}`, size: e.size + e.sizeDelta },
        );
        try {
          for (const f of planRestore(listing)) {
            let next = 0;
            for (const p of f.parts) {
              expect(p.offset).toBe(next);
              next += p.size;
            }
            expect(next).toBe(f.size);
          }
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptBackupError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
