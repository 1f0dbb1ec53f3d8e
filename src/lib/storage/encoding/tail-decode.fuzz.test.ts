import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STALE_NAN } from '../../storageapi/stale.ts';
import { CorruptDataError } from '../common/errors.ts';
import { ByteWriter } from '../../bytes/index.ts';
import { ENC_ZSTD, TS_DELTA_OF_DELTA, TS_DELTA_OF_DELTA_TAIL, encodeTimestamps } from './timestamps.ts';
import { decodeTimestamps, decodeTimestampsTail } from './timestamps-decode.ts';
import { V_CONST, V_DECIMAL_DELTA, V_DECIMAL_DELTA2, V_DECIMAL_DELTA2_TAIL, V_DECIMAL_DELTA_TAIL, V_FLOAT_XOR, ValueEncoder } from './values.ts';
import { decodeValues, decodeValuesTail } from './values-decode.ts';

const sameBits = (a: Float64Array, b: Float64Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

// withoutLastVarints drops the trailing varints of a raw stream: the tail-less form that parts
// written before the tail encodings hold.
function withoutLastVarints(bytes: Uint8Array, count: number): Uint8Array {
  let end = bytes.length;
  for (let k = 0; k < count; k++) {
    end--;
    while (end > 0 && bytes[end - 1]! >= 0x80) end--;
  }
  return bytes.subarray(0, end);
}

// Scrape-like timestamps: a start, a step, and jitter below the step that may be zero (constant
// deltas), so they strictly ascend.
const tsArb = fc
  .tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 50 }), fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 400 }))
  .map(([start, step, jitter, noise]) => {
    const j = Math.min(jitter, step - 1);
    return noise.map((x, i) => start + i * step + (x % (j + 1)));
  });

const valueArb = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((i) => i / 100),
  fc.integer({ min: 0, max: 2 ** 40 }),
  fc.constantFrom(NaN, -0, Infinity, 0.1 + 0.2),
);

describe('decodeTimestampsTail', () => {
  it('decodes exactly the timestamps >= minTs, from streams with and without a tail', () => {
    fc.assert(
      fc.property(tsArb, fc.constantFrom(0, 3), fc.double({ min: 0, max: 1, noNaN: true }), (ts, level, at) => {
        const n = ts.length;
        const src = Float64Array.from(ts);
        const w = new ByteWriter();
        const enc = encodeTimestamps(src, 0, n, w, level);
        const minTs = ts[0]! - 5 + at * (ts[n - 1]! - ts[0]! + 10);
        let want = ts.findIndex((t) => t >= minTs);
        if (want < 0) want = n - 1;
        const f = (e: number, bytes: Uint8Array) => {
          const out = new Float64Array(n);
          const lo = decodeTimestampsTail(e, bytes, n, ts[0]!, ts[n - 1]!, minTs, out, 0, 'tail');
          expect(lo).toBe(want);
          expect(Array.from(out.subarray(lo))).toEqual(ts.slice(lo));
        };
        f(enc, w.copy());
        if (enc === TS_DELTA_OF_DELTA_TAIL) f(TS_DELTA_OF_DELTA, withoutLastVarints(w.copy(), 1));
      }),
      { numRuns: 500 },
    );
  });
});

describe('decodeValuesTail', () => {
  // Both decoders report whether a value written may be NaN: "no" must be true, and the decimal
  // and constant forms know their NaNs (a tail reports those of the whole block).
  it('decodes the values from lo on bit-exact, from streams with and without a tail, and report NaN as the encoding shows', () => {
    const hasNaN = (a: Float64Array): boolean => a.some((v) => Number.isNaN(v));
    // Runs of one value make constant blocks.
    const blockArb = fc.oneof(
      fc.array(valueArb, { minLength: 1, maxLength: 300 }),
      fc.tuple(valueArb, fc.integer({ min: 1, max: 200 })).map(([v, n]) => Array<number>(n).fill(v)),
    );
    fc.assert(
      fc.property(blockArb, fc.constantFrom(0, 3), fc.nat(), fc.array(fc.nat(), { maxLength: 3 }), (vals, level, loSeed, stale) => {
        const src = Float64Array.from(vals);
        for (const i of stale) src[i % src.length] = STALE_NAN;
        const n = src.length;
        const lo = loSeed % n;
        const w = new ByteWriter();
        const enc = new ValueEncoder(level).encode(src, 0, n, w);
        const f = (e: number, bytes: Uint8Array) => {
          const out = new Float64Array(n);
          const tailNaN = decodeValuesTail(e, bytes, n, lo, out, 0, 'tail');
          expect(sameBits(out.subarray(lo), src.subarray(lo))).toBe(true);
          const whole = new Float64Array(n);
          const wholeNaN = decodeValues(e, bytes, n, whole, 0, 'whole');
          expect(sameBits(whole, src)).toBe(true);
          if (!tailNaN) expect(hasNaN(src.subarray(lo))).toBe(false);
          if ((e & ~ENC_ZSTD) !== V_FLOAT_XOR) expect([tailNaN, wholeNaN]).toEqual([hasNaN(src), hasNaN(src)]);
          else expect(wholeNaN).toBe(true);
        };
        f(enc, w.copy());
        if (enc === V_DECIMAL_DELTA_TAIL) f(V_DECIMAL_DELTA, withoutLastVarints(w.copy(), 1));
        if (enc === V_DECIMAL_DELTA2_TAIL) f(V_DECIMAL_DELTA2, withoutLastVarints(w.copy(), 2));
      }),
      { numRuns: 500 },
    );
  });
});

describe('decodeValuesTail of XOR and constant streams', () => {
  it('decodes them backwards from the last value, bit-exact for every lo, at any byte offset', () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { minLength: 1, maxLength: 80 }), fc.boolean(), fc.nat(3), (vals, constant, pad) => {
        const src = constant ? new Float64Array(vals.length).fill(vals[0]!) : Float64Array.from(vals);
        const n = src.length;
        const w = new ByteWriter();
        const enc = new ValueEncoder(0).encode(src, 0, n, w);
        if (enc !== V_FLOAT_XOR && enc !== V_CONST) return;
        // At an odd offset of its buffer, as a view of a read span is.
        const raw = w.copy();
        const bytes = new Uint8Array(pad + raw.length);
        bytes.set(raw, pad);
        const stream = bytes.subarray(pad);
        for (let lo = 0; lo < n; lo++) {
          const out = new Float64Array(n + 2);
          decodeValuesTail(enc, stream, n, lo, out, 2, 'tail');
          expect(sameBits(out.subarray(2 + lo), src.subarray(lo))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('tail decoders on garbage', () => {
  it('return numbers or throw CorruptDataError, nothing else', () => {
    const enc = fc.constantFrom(1, 2, 3, 4, 5, 1 | ENC_ZSTD, 3 | ENC_ZSTD, 5 | ENC_ZSTD, 0, 7);
    fc.assert(
      fc.property(enc, fc.uint8Array({ maxLength: 120 }), fc.integer({ min: 1, max: 64 }), fc.nat(), (e, bytes, n, k) => {
        const out = new Float64Array(n);
        try {
          decodeTimestampsTail(e, bytes, n, 0, 1000, k % 1000, out, 0, 'garbage');
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
        try {
          decodeValuesTail(e, bytes, n, k % n, out, 0, 'garbage');
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the whole decoders check the tail against the stream', () => {
    const src = Float64Array.from({ length: 50 }, (_, i) => 100 + i * 3 + (i % 4));
    const w = new ByteWriter();
    const enc = new ValueEncoder(0).encode(src, 0, 50, w);
    const bytes = w.copy();
    bytes[bytes.length - 1]! ^= 0x02;
    expect(() => decodeValues(enc, bytes, 50, new Float64Array(50), 0, 'v')).toThrow(/cannot decode v.*does not match/);
    const ts = Float64Array.from({ length: 50 }, (_, i) => 1000 + i * 10 + (i % 3));
    w.reset();
    const tenc = encodeTimestamps(ts, 0, 50, w, 0);
    const tbytes = w.copy();
    tbytes[tbytes.length - 1]! ^= 0x02;
    expect(() => decodeTimestamps(tenc, tbytes, 50, 1000, new Float64Array(50), 0, 't')).toThrow(/cannot decode t.*does not match/);
  });
});
