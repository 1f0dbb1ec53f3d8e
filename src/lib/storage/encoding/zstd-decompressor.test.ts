import { constants, zstdCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '../common/errors.ts';
import { frameContentSize, inflateTransient } from './zstd-decompressor.ts';
import { decompress, decompressTransient } from './zstd.ts';

const sample = (n: number, seed: number): Uint8Array => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = ((i * 31 + seed) % 17) + (i % 97 === 0 ? seed & 0xff : 0);
  return b;
};
const pack = (raw: Uint8Array, params: Record<number, number> = {}): Uint8Array => zstdCompressSync(raw, { params });

describe('frameContentSize', () => {
  it('reads the declared size of frames zstdCompressSync writes, -1 for frames the fast path skips', () => {
    const f = (frame: Uint8Array, want: number) => expect(frameContentSize(frame)).toBe(want);
    f(pack(new Uint8Array(0)), 0);
    f(pack(sample(200, 1)), 200);
    f(pack(sample(3000, 2)), 3000);
    f(pack(sample(100_000, 3)), 100_000);
    f(pack(sample(300, 4), { [constants.ZSTD_c_checksumFlag]: 1 }), -1);
    f(pack(sample(300, 4), { [constants.ZSTD_c_contentSizeFlag]: 0 }), -1);
    f(Uint8Array.from([1, 2, 3, 4, 5, 6, 7]), -1);
    f(pack(sample(300, 4)).subarray(0, 5), -1);
  });
});

describe('inflateTransient', () => {
  it('decodes frame after frame through one context', () => {
    const f = (raw: Uint8Array) => expect(Buffer.from(inflateTransient(pack(raw), raw.length)!).equals(Buffer.from(raw))).toBe(true);
    for (let i = 0; i < 50; i++) f(sample(1 + i * 97, i));
    f(new Uint8Array(0));
    f(sample(200_000, 9));
  });

  it('hands back frames it cannot decode exactly, and keeps working after them', () => {
    const good = sample(2000, 5);
    const frame = pack(good);
    const f = (bad: Uint8Array, maxBytes: number) => {
      expect(inflateTransient(bad, maxBytes)).toBeUndefined();
      expect(Buffer.from(inflateTransient(frame, 2000)!).equals(Buffer.from(good))).toBe(true);
    };
    f(frame.subarray(0, frame.length - 3), 2000); // cut short
    f(Uint8Array.from([...frame, 0, 1, 2]), 2000); // trailing bytes
    f(frame, 1999); // declared size above the bound
    const flipped = Uint8Array.from(frame);
    flipped[frame.length - 5]! ^= 0xff;
    f(flipped, 2000);
    f(pack(good, { [constants.ZSTD_c_checksumFlag]: 1 }), 2000);
  });
});

describe('decompress', () => {
  it('returns the same bytes on the fast and the slow path, or a CorruptDataError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.integer({ min: 0, max: 40 }), fc.boolean(), (raw, cut, checksum) => {
        const frame = pack(raw, checksum ? { [constants.ZSTD_c_checksumFlag]: 1 } : {});
        expect(Buffer.from(decompress(frame, raw.length, 'x')).equals(Buffer.from(raw))).toBe(true);
        expect(Buffer.from(decompressTransient(frame, raw.length, 'x')).equals(Buffer.from(raw))).toBe(true);
        const damaged = frame.subarray(0, Math.max(0, frame.length - cut));
        try {
          decompressTransient(damaged, raw.length, 'damaged');
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('names the object in its error', () => {
    expect(() => decompress(Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0]), 100, 'block 7')).toThrow(/cannot decompress block 7/);
  });
});
