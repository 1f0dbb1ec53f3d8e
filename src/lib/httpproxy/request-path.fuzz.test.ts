import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeRequestPath, PathError } from './request-path.ts';

const pathChars = fc.constantFrom('/', '.', '%', '2', 'e', 'E', 'f', 'F', 'a', 'z', ' ', '?', '#', '\\', 'é', '\u0000', '%2e', '%2f', '..', '//');

describe('normalizeRequestPath (fuzz)', () => {
  it('returns a clean absolute path or throws PathError, and is idempotent', () => {
    fc.assert(fc.property(fc.array(pathChars, { maxLength: 40 }).map((a) => `/${a.join('')}`), (raw) => {
      let r;
      try {
        r = normalizeRequestPath(raw);
      } catch (err) {
        expect(err).toBeInstanceOf(PathError);
        return;
      }
      expect(r.path.startsWith('/')).toBe(true);
      expect(r.path).not.toMatch(/\/\/|\/\.\.?(\/|$)/);
      // what the backend decodes from `encoded` is exactly the path the rules matched
      expect(decodeURIComponent(r.encoded)).toBe(r.path);
      expect(normalizeRequestPath(r.encoded)).toEqual(r);
    }), { numRuns: 1000 });
  });

  it('never throws anything but PathError on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60, unit: 'binary' }), (raw) => {
      try {
        normalizeRequestPath(raw);
      } catch (err) {
        expect(err).toBeInstanceOf(PathError);
      }
    }), { numRuns: 1000 });
  });
});
