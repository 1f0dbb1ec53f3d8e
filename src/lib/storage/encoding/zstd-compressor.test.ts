import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deflateTransient } from './zstd-compressor.ts';
import { compress, maybeCompress } from './zstd.ts';

const sync = (raw: Uint8Array, level: number): Buffer => zstdCompressSync(raw, { params: { [constants.ZSTD_c_compressionLevel]: level } });
// Compressible bytes: a few symbols with some noise.
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => a.map((x, i) => (x < 40 ? x : i % 11)));

describe('deflateTransient', () => {
  it('makes the frames zstdCompressSync makes, frame after frame and level after level through reused contexts', () => {
    fc.assert(fc.property(fc.array(fc.tuple(bytes(5000), fc.constantFrom(1, 3, 7)), { minLength: 1, maxLength: 6 }), (inputs) => {
      for (const [raw, level] of inputs) {
        const got = deflateTransient(raw, level);
        expect(got).toBeDefined();
        expect(Buffer.from(got!).equals(sync(raw, level))).toBe(true);
      }
    }), { numRuns: 60 });
  });

  it('handles inputs larger than its output buffer and several zstd blocks', () => {
    const raw = new Uint8Array(600_000).map((_, i) => (i * 7919) % 251 < 30 ? i & 0xff : i % 13);
    const got = deflateTransient(raw, 3);
    expect(got).toBeDefined();
    expect(Buffer.from(got!).equals(sync(raw, 3))).toBe(true);
    expect(Buffer.from(zstdDecompressSync(got!)).equals(Buffer.from(raw))).toBe(true);
  });
});

describe('maybeCompress and compress', () => {
  it('return their own copy of the frame (the shared buffer is overwritten by the next call)', () => {
    const a = new Uint8Array(4000).map((_, i) => i % 5);
    const b = new Uint8Array(4000).map((_, i) => i % 9);
    const fa = maybeCompress(a, 3)!;
    const fb = compress(b, 3);
    expect(Buffer.from(fa).equals(sync(a, 3))).toBe(true);
    expect(Buffer.from(fb).equals(sync(b, 3))).toBe(true);
    expect(maybeCompress(new Uint8Array(100), 3)).toBeUndefined(); // below MIN_COMPRESS_BYTES
  });
});
