import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ByteReader, ByteWriter } from '../../bytes/index.ts';
import { decimalExponent, NOT_DECIMAL, toMantissa } from './decimal.ts';
import { MAX_TIMESTAMP_ABS, encodeTimestamps } from './timestamps.ts';
import { decodeTimestamps } from './timestamps-decode.ts';
import { V_DECIMAL_DELTA2_TAIL, V_DECIMAL_DELTA_TAIL, ValueEncoder } from './values.ts';
import { decodeValues } from './values-decode.ts';
import { CorruptDataError } from '../common/errors.ts';
import { STALE_NAN } from '../../storageapi/stale.ts';

const sameBits = (a: Float64Array, b: Float64Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

// Values that stress the encoder: specials, extremes and short decimals mixed with noise.
const valueArb = fc.oneof(
  fc.double(),
  fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE, 2 ** 53, -(2 ** 53)),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((i) => i / 100),
  fc.integer().map((i) => i * 1000),
  fc.float64Array({ minLength: 1, maxLength: 1 }).map((a) => a[0]!),
);

describe('value encoding properties', () => {
  it('round-trips any float64 sequence bit-exact, with and without zstd', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { minLength: 1, maxLength: 300 }), fc.constantFrom(0, 1, 3), fc.array(fc.nat()), (vals, level, stale) => {
        // JS arrays may canonicalise NaN payloads: place staleness markers in the typed array.
        const src = Float64Array.from(vals);
        for (const i of stale) src[i % src.length] = STALE_NAN;
        const w = new ByteWriter();
        const enc = new ValueEncoder(level).encode(src, 0, src.length, w);
        const out = new Float64Array(src.length);
        decodeValues(enc, w.copy(), src.length, out, 0, 'prop');
        expect(sameBits(out, src)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('picks the smallest exponent of the block and lists exactly the values that do not convert at it', () => {
    // The encoder finds both in one pass; this is their definition.
    const decimalish = fc.oneof(valueArb, fc.integer({ min: -10_000_000, max: 10_000_000 }).chain((i) => fc.constantFrom(i / 10, i / 1000, i / 1e6, i * 1e3)));
    fc.assert(
      fc.property(fc.array(decimalish, { minLength: 2, maxLength: 300 }), (vals) => {
        const src = Float64Array.from(vals);
        const w = new ByteWriter();
        const enc = new ValueEncoder(0).encode(src, 0, src.length, w);
        if (enc !== V_DECIMAL_DELTA_TAIL && enc !== V_DECIMAL_DELTA2_TAIL) return;
        let exp = NOT_DECIMAL;
        for (const v of src) exp = Math.min(exp, decimalExponent(v));
        const misses = Array.from(src).filter((v) => Number.isNaN(toMantissa(v, exp))).length;
        const r = new ByteReader(w.copy(), 'prop');
        expect(r.readVarint()).toBe(exp);
        expect(r.readUvarint()).toBe(misses);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips raw NaN payloads bit-exact', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 0xfffff }), fc.nat()), { minLength: 1, maxLength: 50 }), (words) => {
        const src = new Float64Array(words.length);
        const u = new Uint32Array(src.buffer);
        words.forEach(([hi, lo], i) => {
          u[2 * i] = lo >>> 0;
          u[2 * i + 1] = (0x7ff00000 | hi | 1) >>> 0;
        });
        const w = new ByteWriter();
        const enc = new ValueEncoder(1).encode(src, 0, src.length, w);
        const out = new Float64Array(src.length);
        decodeValues(enc, w.copy(), src.length, out, 0, 'nan');
        expect(sameBits(out, src)).toBe(true);
      }),
    );
  });

  it('decodes garbage into values or a CorruptDataError, nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 1, max: 64 }), (enc, bytes, n) => {
        try {
          decodeValues(enc, bytes, n, new Float64Array(n), 0, 'garbage');
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('timestamp encoding properties', () => {
  it('round-trips any strictly ascending timestamps', () => {
    const tsArb = fc
      .uniqueArray(fc.integer({ min: -MAX_TIMESTAMP_ABS, max: MAX_TIMESTAMP_ABS }), { minLength: 1, maxLength: 300 })
      .map((a) => a.sort((x, y) => x - y));
    fc.assert(
      fc.property(tsArb, fc.constantFrom(0, 3), (ts, level) => {
        const src = Float64Array.from(ts);
        const w = new ByteWriter();
        const enc = encodeTimestamps(src, 0, src.length, w, level);
        const out = new Float64Array(src.length);
        decodeTimestamps(enc, w.copy(), src.length, src[0]!, out, 0, 'prop');
        expect(Array.from(out)).toEqual(ts);
      }),
      { numRuns: 400 },
    );
  });

  it('decodes garbage into numbers or a CorruptDataError, nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 1, max: 64 }), (enc, bytes, n) => {
        try {
          decodeTimestamps(enc, bytes, n, 0, new Float64Array(n), 0, 'garbage');
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
