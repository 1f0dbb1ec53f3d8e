import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors.ts';
import { parseS3StorageClass } from '../s3/s3-options.ts';
import { backupKind, checkBackupName } from './backup-name.ts';

describe('name validators (fuzz)', () => {
  it('checkBackupName returns the name or throws ParseError; backupKind never throws', () => {
    const name = fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.constantFrom('daily', '2024-01-01', '..', '.', '', 'x.ignore', 'a:b'), { maxLength: 4 }).map((s) => s.join('/')));
    fc.assert(
      fc.property(name, (n) => {
        backupKind(n);
        try {
          expect(checkBackupName(n)).toBe(n);
          expect(n.split('/').every((s) => s !== '' && s !== '.' && s !== '..')).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('parseS3StorageClass returns a class or throws ParseError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('STANDARD', 'GLACIER', '')), (s) => {
        try {
          const c = parseS3StorageClass(s);
          expect(c === undefined ? s === '' : c === s).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
