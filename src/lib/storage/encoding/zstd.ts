import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { CorruptDataError, errorMessage } from '../common/errors.ts';
import { deflateTransient } from './zstd-compressor.ts';
import { inflateTransient } from './zstd-decompressor.ts';

// A zstdCompressSync call costs about 10-15 µs of fixed overhead (a context per call; the
// reused context of zstd-compressor.ts avoids most of it), and a frame about 10 bytes. Small inputs are stored raw: that keeps merges of small, short-lived parts cheap, while
// blocks of merged parts (hundreds to thousands of samples) are compressed. The caller records
// in its own header whether the bytes are compressed.

/**
 * MIN_COMPRESS_BYTES is the smallest input worth a zstd frame. 256, not 512: merged blocks of 360
 * samples (6 h of minute scrapes) have value streams of 300-600 bytes, and at 512 half of them
 * stayed raw (L-shaped bench part: 7% more value bytes).
 */
export const MIN_COMPRESS_BYTES = 256;

/**
 * MIN_COMPRESS_ROWS is the fewest rows of a block whose streams are worth zstd frames. Blocks of
 * fewer rows belong to parts that merges rewrite soon (flushed parts have a few dozen rows per
 * series; merging 4 of them at 10k series gives ~210): a frame costs ~16 ns per value there
 * (Huffman tables built per frame; zstd's levels -1..3 cost the same at this size, and levels of
 * -3 and below leave literals raw, saving ~1.5%) to save ~5% of bytes that live seconds, and a
 * search of such a part inflates it again. 256, below the 360 rows of a merged 6 h at minute
 * scrapes (the L bench), which stays compressed.
 */
export const MIN_COMPRESS_ROWS = 256;

/** blockZstdLevel is the zstd level for the streams of a block of `rows` rows written at `level` (0: raw). */
export function blockZstdLevel(level: number, rows: number): number {
  return rows < MIN_COMPRESS_ROWS ? 0 : level;
}

/**
 * maybeCompressTransient returns zstd(raw) when that saves at least a 32nd of the bytes, else
 * undefined (store raw); an eighth left a third of the S bench's merged value bytes raw in streams
 * zstd shrank by 5-12%. level is a zstd level (1 fast … 19 small). The bytes may be a view of a
 * buffer the next compression on this thread reuses: for callers that copy them at once (block
 * encoders writing into their ByteWriter), which then allocate nothing per block.
 */
export function maybeCompressTransient(raw: Uint8Array, level: number): Uint8Array | undefined {
  if (raw.length < MIN_COMPRESS_BYTES) return undefined;
  const out = deflateTransient(raw, level) ?? zstdCompressSync(raw, { params: { [constants.ZSTD_c_compressionLevel]: level } });
  return out.length <= raw.length - (raw.length >> 5) ? out : undefined;
}

/** maybeCompress is maybeCompressTransient with bytes of their own. */
export function maybeCompress(raw: Uint8Array, level: number): Uint8Array | undefined {
  return maybeCompressTransient(raw, level)?.slice();
}

/** compress always returns a zstd frame of raw. */
export function compress(raw: Uint8Array, level: number): Uint8Array {
  return deflateTransient(raw, level)?.slice() ?? zstdCompressSync(raw, { params: { [constants.ZSTD_c_compressionLevel]: level } });
}

/**
 * decompress inflates a zstd frame into a new buffer; maxBytes bounds the output so a damaged
 * frame cannot make us allocate without limit. Throws CorruptDataError naming `what`.
 */
export function decompress(frame: Uint8Array, maxBytes: number, what: string): Uint8Array {
  const fast = inflateTransient(frame, maxBytes);
  return fast !== undefined ? fast.slice() : decompressSlow(frame, maxBytes, what);
}

/**
 * decompressTransient is decompress for bytes consumed at once: the result may be a view of a
 * shared buffer that the next decompress call overwrites.
 */
export function decompressTransient(frame: Uint8Array, maxBytes: number, what: string): Uint8Array {
  return inflateTransient(frame, maxBytes) ?? decompressSlow(frame, maxBytes, what);
}

function decompressSlow(frame: Uint8Array, maxBytes: number, what: string): Uint8Array {
  try {
    return zstdDecompressSync(frame, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    throw new CorruptDataError(`cannot decompress ${what}: ${errorMessage(err)}`, { cause: err });
  }
}
