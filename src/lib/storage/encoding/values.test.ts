import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../bytes/index.ts';
import { decimalExponent, NOT_DECIMAL } from './decimal.ts';
import { ENC_ZSTD, TS_CONST_DELTA, TS_DELTA_OF_DELTA, TS_DELTA_OF_DELTA_TAIL, encodeTimestamps } from './timestamps.ts';
import { decodeTimestamps } from './timestamps-decode.ts';
import { V_CONST, V_DECIMAL_DELTA2_TAIL, V_DECIMAL_DELTA_TAIL, V_FLOAT_XOR, ValueEncoder } from './values.ts';
import { decodeValues } from './values-decode.ts';
import { MIN_COMPRESS_ROWS } from './zstd.ts';
import { STALE_NAN, isStaleNaN } from '../../storageapi/stale.ts';

function bitsOf(a: Float64Array): string[] {
  const u = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  const out: string[] = [];
  for (let i = 0; i < a.length; i++) out.push(`${u[2 * i + 1]!.toString(16)}:${u[2 * i]!.toString(16)}`);
  return out;
}

// JS arrays may canonicalise NaN payloads, so a staleness marker is placed with withStale.
function withStale(vals: number[], ...staleAt: number[]): Float64Array {
  const a = Float64Array.from(vals);
  for (const i of staleAt) a[i] = STALE_NAN;
  return a;
}

function roundTripValues(vals: number[] | Float64Array, level = 3): { kind: number; bytes: number; out: Float64Array } {
  const src = Float64Array.from(vals);
  const w = new ByteWriter();
  const enc = new ValueEncoder(level).encode(src, 0, src.length, w);
  const out = new Float64Array(src.length);
  decodeValues(enc, w.copy(), src.length, out, 0, 'test values');
  expect(bitsOf(out)).toEqual(bitsOf(src));
  return { kind: enc & ~ENC_ZSTD, bytes: w.pos, out };
}

describe('decimalExponent', () => {
  it('finds the shortest exact decimal or refuses', () => {
    const f = (v: number, want: number) => expect(decimalExponent(v)).toBe(want);
    // integers within the mantissa range need no exponent
    f(0, 0);
    f(42, 0);
    f(-7, 0);
    // short fractions
    f(0.5, -1);
    f(12.25, -2);
    f(-0.001, -3);
    // huge round numbers use the smallest positive exponent that fits the mantissa
    f(1e20, 5);
    f(-3e21, 7);
    // not representable: noisy fractions, specials, -0
    f(0.1 + 0.2, NOT_DECIMAL);
    f(NaN, NOT_DECIMAL);
    f(Infinity, NOT_DECIMAL);
    f(-Infinity, NOT_DECIMAL);
    f(-0, NOT_DECIMAL);
    f(Number.MAX_VALUE, NOT_DECIMAL);
    f(5e-324, NOT_DECIMAL);
  });
});

describe('ValueEncoder', () => {
  it('picks an encoding by the shape of the data and round-trips bit-exact', () => {
    const f = (vals: number[] | Float64Array, wantKind: number) => expect(roundTripValues(vals).kind).toBe(wantKind);
    // identical bits, including NaN payloads
    f([5, 5, 5], V_CONST);
    f(withStale([0, 0], 0, 1), V_CONST);
    f([1.5], V_CONST);
    // a steady counter: second differences vanish
    f(Array.from({ length: 100 }, (_, i) => 1000 + i * 15), V_DECIMAL_DELTA2_TAIL);
    // a random walk in cents: plain deltas win
    f([10.01, 10.03, 9.99, 10.4, 10.38, 10.7, 10.12, 10.2, 10.02], V_DECIMAL_DELTA_TAIL);
    // a staleness marker at the end stays an exception of a decimal block
    f(withStale([1, 2, 3, 4, 5, 6, 7, 0], 7), V_DECIMAL_DELTA2_TAIL);
    // mostly noisy floats fall back to XOR
    f([Math.PI, Math.E, Math.SQRT2, 0.1 + 0.2], V_FLOAT_XOR);
    f(withStale([NaN, -0, Infinity, -Infinity, 0], 4), V_FLOAT_XOR);
  });

  it('keeps the staleness marker apart from ordinary NaN', () => {
    const { out } = roundTripValues(withStale([1, NaN, 2, 3, 4, 5, 6, 7, 8, 0], 9));
    expect(isStaleNaN(out[9]!)).toBe(true);
    expect(isStaleNaN(out[1]!)).toBe(false);
    expect(Number.isNaN(out[1]!)).toBe(true);
  });

  it('compresses steady counters to well under a byte per sample', () => {
    const vals = Array.from({ length: 1440 }, (_, i) => 123456 + i * 60);
    expect(roundTripValues(vals).bytes).toBeLessThan(100);
  });

  it('stores a counter with random increments as plain deltas when it compresses, delta-of-deltas when not', () => {
    // Increments uniform in [600, 1400): delta-of-deltas are shorter varints (centred on zero) but
    // spread twice as wide, so under zstd the plain deltas are smaller.
    let x = 12345;
    let v = 1e9;
    const vals = Array.from({ length: 1440 }, () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (v += 600 + (x >>> 16) % 800);
    });
    const src = Float64Array.from(vals);
    const w = new ByteWriter();
    expect(new ValueEncoder(3).encode(src, 0, src.length, w)).toBe(V_DECIMAL_DELTA_TAIL | ENC_ZSTD);
    const packed = roundTripValues(vals, 3);
    const raw = roundTripValues(vals, 0);
    expect(raw.kind).toBe(V_DECIMAL_DELTA2_TAIL);
    expect(packed.bytes).toBeLessThan(raw.bytes * 0.85);
  });

  it('works on a slice of a larger array', () => {
    const src = Float64Array.from([9, 1, 2, 3, 9]);
    const w = new ByteWriter();
    const enc = new ValueEncoder(0).encode(src, 1, 4, w);
    const out = new Float64Array(5);
    decodeValues(enc, w.copy(), 3, out, 2, 'slice');
    expect(Array.from(out)).toEqual([0, 0, 1, 2, 3]);
  });
});

describe('zstd by rows per block', () => {
  // A counter with increments from a small set: ~2 varint bytes a value that zstd shrinks.
  const counter = (n: number) => {
    let x = 777;
    let v = 1e6;
    return Float64Array.from({ length: n }, () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (v += 600 + ((x >>> 16) % 8) * 100);
    });
  };
  const jittered = (n: number) => Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 15_000 + ((i * 7919) % 997));

  it('leaves the streams of blocks under MIN_COMPRESS_ROWS raw and compresses those at or above it', () => {
    const f = (rows: number, level: number, wantZstd: boolean) => {
      const vals = counter(rows);
      const w = new ByteWriter();
      const enc = new ValueEncoder(level).encode(vals, 0, rows, w);
      expect((enc & ENC_ZSTD) !== 0).toBe(wantZstd);
      const out = new Float64Array(rows);
      decodeValues(enc, w.copy(), rows, out, 0, 'rows');
      expect(bitsOf(out)).toEqual(bitsOf(vals));
      const ts = jittered(rows);
      const tw = new ByteWriter();
      const tsEnc = encodeTimestamps(ts, 0, rows, tw, level);
      expect((tsEnc & ENC_ZSTD) !== 0).toBe(wantZstd);
      const tsOut = new Float64Array(rows);
      decodeTimestamps(tsEnc, tw.copy(), rows, ts[0]!, tsOut, 0, 'rows');
      expect(Array.from(tsOut)).toEqual(Array.from(ts));
    };
    f(MIN_COMPRESS_ROWS - 1, 3, false);
    f(MIN_COMPRESS_ROWS, 3, true);
    f(1440, 1, true);
    // level 0 (flushes) never compresses
    f(1440, 0, false);
  });

  it('chooses the delta form of a raw block by varint bytes alone', () => {
    // Increments uniform in [600, 1400): under zstd the plain deltas win (test above), raw the
    // delta-of-deltas' shorter varints.
    let x = 12345;
    let v = 1e9;
    const vals = Float64Array.from({ length: MIN_COMPRESS_ROWS - 1 }, () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (v += 600 + (x >>> 16) % 800);
    });
    expect(new ValueEncoder(3).encode(vals, 0, vals.length, new ByteWriter())).toBe(new ValueEncoder(0).encode(vals, 0, vals.length, new ByteWriter()));
  });
});

describe('timestamp encoding', () => {
  const roundTrip = (ts: number[]): { kind: number; bytes: number } => {
    const src = Float64Array.from(ts);
    const w = new ByteWriter();
    const enc = encodeTimestamps(src, 0, src.length, w, 3);
    const out = new Float64Array(src.length);
    decodeTimestamps(enc, w.copy(), src.length, src[0]!, out, 0, 'test timestamps');
    expect(Array.from(out)).toEqual(ts);
    return { kind: enc & ~ENC_ZSTD, bytes: w.pos };
  };

  it('stores regular scrapes as one delta and jitter as delta-of-deltas', () => {
    const f = (ts: number[], wantKind: number, maxBytes: number) => {
      const r = roundTrip(ts);
      expect(r.kind).toBe(wantKind);
      expect(r.bytes).toBeLessThanOrEqual(maxBytes);
    };
    f([1000], TS_CONST_DELTA, 0);
    f([1000, 61000], TS_CONST_DELTA, 3);
    f(Array.from({ length: 1440 }, (_, i) => 1.7e12 + i * 60_000), TS_CONST_DELTA, 3);
    f([-5000, -10, 0, 7, 100_000_000_000], TS_DELTA_OF_DELTA_TAIL, 26);
    f(Array.from({ length: 500 }, (_, i) => 1.7e12 + i * 15_000 + (i % 3)), TS_DELTA_OF_DELTA_TAIL, 520);
    f(Array.from({ length: 5000 }, (_, i) => 1.7e12 + i * 15_000 + (i % 3)), TS_DELTA_OF_DELTA_TAIL, 600);
  });

  it('rejects streams whose timestamps do not strictly ascend', () => {
    const f = (enc: number, bytes: number[], n: number) =>
      expect(() => decodeTimestamps(enc, Uint8Array.from(bytes), n, 1000, new Float64Array(n), 0, 'bad')).toThrow(/cannot decode bad.*(zero timestamp delta|do not ascend)/);
    f(TS_CONST_DELTA, [0], 3);
    f(TS_DELTA_OF_DELTA, [0, 0], 3);
    f(TS_DELTA_OF_DELTA, [10, 19], 3); // second delta 10 - 10 = 0
    f(TS_DELTA_OF_DELTA, [10, 0, 21], 4); // third delta 10 - 11 < 0
  });
});
