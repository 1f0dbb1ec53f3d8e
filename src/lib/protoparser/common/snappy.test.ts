import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compressSync, uncompressSync } from 'snappy';
import { BodyTooLargeError, ParseError } from './parse-error.ts';
import { decodeSnappyInto, snappyDecodedLength } from './snappy.ts';

// The `snappy` package (Google's format, native) is the reference: what it compresses must decode
// to the same bytes, and what it refuses this decoder must refuse too.

function decode(block: Uint8Array): Buffer {
  const out = Buffer.alloc(snappyDecodedLength(block, 1 << 20) + 7); // longer than needed: only [0, n) is written
  return out.subarray(0, decodeSnappyInto(block, out));
}

function reference(block: Uint8Array): Buffer | Error {
  try {
    return uncompressSync(Buffer.from(block), { asBuffer: true }) as Buffer;
  } catch (e) {
    return e as Error;
  }
}

// Inputs that compress: repeats of short runs (overlapping copies) and of longer ones (copies
// from far back, 2- and 4-byte offsets), mixed with literals of every length class.
const compressible = fc.array(
  fc.oneof(
    fc.uint8Array({ maxLength: 80 }),
    fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 200 })).map(([b, n]) => Buffer.concat(Array.from({ length: n }, () => b))),
    fc.tuple(fc.uint8Array({ minLength: 60, maxLength: 3000 }), fc.integer({ min: 1, max: 4 })).map(([b, n]) => Buffer.concat(Array.from({ length: n }, () => b))),
  ),
  { maxLength: 12 },
).map((parts) => Buffer.concat(parts));

function uvarint(n: number): Buffer {
  const b: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) b.push((n & 0x7f) | 0x80);
  b.push(n);
  return Buffer.from(b);
}

describe('decodeSnappyInto', () => {
  it('decodes what the snappy package compresses', () => {
    fc.assert(fc.property(compressible, (data) => {
      expect(decode(compressSync(data)).equals(data)).toBe(true);
    }), { numRuns: 300 });
  });

  it('decodes long literals (1–4 length bytes) and copies with 4-byte offsets', () => {
    const big = Buffer.alloc(70_000 + 1);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    // A literal of 70,001 bytes (three length bytes), then a copy of 10 bytes from 70,001 back.
    const block = Buffer.concat([uvarint(70_011), Buffer.from([62 << 2, 0x70, 0x11, 0x01]), big, Buffer.from([(9 << 2) | 3, 0x71, 0x11, 0x01, 0x00])]);
    const want = Buffer.concat([big, big.subarray(0, 10)]);
    expect(snappyDecodedLength(block, 1 << 20)).toBe(want.length);
    expect(decode(block).equals(want)).toBe(true);
    expect(decode(block).equals(reference(block) as Buffer)).toBe(true);
  });

  it('refuses what the snappy package refuses, with a ParseError, and accepts what it accepts alike (fuzz)', () => {
    const mutated = fc.tuple(compressible, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), fc.nat())
      .map(([data, edits, cut]) => {
        const b = Buffer.from(compressSync(data));
        for (const [at, v] of edits) if (b.length > 0) b[at % b.length] = v;
        return b.subarray(0, b.length === 0 ? 0 : b.length - (cut % 3));
      });
    fc.assert(fc.property(fc.oneof(mutated, fc.uint8Array({ maxLength: 64 })), (block) => {
      // A declared length past the limit is refused before anything is decoded (or allocated).
      try {
        snappyDecodedLength(block, 1 << 20);
      } catch (e) {
        if (e instanceof BodyTooLargeError) return;
      }
      const want = reference(block);
      let got: Buffer | Error;
      try {
        got = decode(block);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        got = e;
      }
      if (want instanceof Error) expect(got).toBeInstanceOf(ParseError);
      else expect(got instanceof Error ? got.message : got.equals(want)).toBe(true);
    }), { numRuns: 1000 });
  });

  it('checks the declared length against the limit before decoding', () => {
    const block = compressSync(Buffer.alloc(1000, 1));
    expect(() => snappyDecodedLength(block, 999)).toThrow(BodyTooLargeError);
    expect(snappyDecodedLength(block, 1000)).toBe(1000);
    expect(() => decodeSnappyInto(block, Buffer.alloc(999))).toThrow(RangeError);
  });

  it('names the byte where a block breaks', () => {
    expect(() => decode(Buffer.from([5, 4 << 2, 1, 2]))).toThrow('at byte 1: cannot decompress snappy block: truncated literal');
    expect(() => decode(Buffer.from([4, 0, 1, 1 | (0 << 2), 1]))).toThrow('at byte 3: cannot decompress snappy block: copy past the decoded length');
    expect(() => decode(Buffer.from([3, 0, 1]))).toThrow('at byte 3: cannot decompress snappy block: decoded 1 bytes, the header says 3');
    expect(() => decode(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x10]))).toThrow('invalid snappy block header');
  });
});
