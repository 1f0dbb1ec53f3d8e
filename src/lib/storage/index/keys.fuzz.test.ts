import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CorruptDataError } from '../common/errors.ts';
import { decodeLabelsKey, decodeText, encodeText, labelsKey } from './keys.ts';

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('index key text encoding', () => {
  it('round-trips any string and keeps UTF-8 byte order (no text is a prefix of a longer one)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(decodeText(encodeText(a), 0)).toEqual([a, encodeText(a).length]);
        expect(decodeText(encodeText(b), 0)[0]).toBe(b);
        const ea = encodeText(a);
        const eb = encodeText(b);
        expect(Math.sign(ea < eb ? -1 : ea > eb ? 1 : 0)).toBe(Math.sign(utf8Order(a, b)));
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips label sets', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string({ minLength: 1, unit: 'binary' })), (o) => {
        const labels = Object.keys(o).sort().map((name) => ({ name, value: o[name]! }));
        expect(decodeLabelsKey(labelsKey(labels), 0)).toEqual(labels);
      }),
    );
  });

  it('decodes garbage into labels or a CorruptDataError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decodeLabelsKey(Buffer.from(bytes).toString('latin1'), 0);
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
