import { ZstdDecompress } from 'node:zlib';
import { NativeZstdContext } from './zstd-native.ts';

// node:zlib's zstdDecompressSync builds a Transform stream and a native decompression context
// for every call: about 18 µs on this machine, against 2-3 µs to inflate a typical 3 KB block.
// Reads decompress thousands of small frames per query, so this module keeps one context and
// feeds it frame after frame through the stream's native handle. That handle is not a
// documented API, so the fast path is used only after a self-test at first use, only for frames
// whose header states their size, and a frame it cannot decode exactly is handed back to the
// caller (which then uses zstdDecompressSync), discarding the context.

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * frameContentSize returns the decompressed size a zstd frame header declares, or -1 when the
 * frame is not one the fast path takes: no declared size, a dictionary, a checksum, a skippable
 * or malformed frame (RFC 8878 §3.1.1.1).
 */
export function frameContentSize(frame: Uint8Array): number {
  if (frame.length < 6) return -1;
  const magic = (frame[0]! | (frame[1]! << 8) | (frame[2]! << 16) | (frame[3]! << 24)) >>> 0;
  if (magic !== ZSTD_MAGIC) return -1;
  const fhd = frame[4]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd >> 5) & 1;
  if ((fhd & 0x0f) !== 0) return -1; // reserved bit, checksum or dictionary
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  if (fcsBytes === 0 || fcsBytes === 8) return -1; // unknown size, or one we never write
  const at = 5 + (singleSegment ? 0 : 1);
  if (frame.length < at + fcsBytes) return -1;
  if (fcsBytes === 1) return frame[at]!;
  if (fcsBytes === 2) return (frame[at]! | (frame[at + 1]! << 8)) + 256;
  return (frame[at]! | (frame[at + 1]! << 8) | (frame[at + 2]! << 16) | (frame[at + 3]! << 24)) >>> 0;
}

let ctx: NativeZstdContext | undefined;
let usable: boolean | undefined;
let out = new Uint8Array(1 << 16);

// A frame of "ab" repeated, made by zstdCompressSync: the self-test input.
const PROBE = Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x40, 0x45, 0x00, 0x00, 0x10, 0x61, 0x62, 0x01, 0x00, 0x4b, 0x72, 0x58]);
const PROBE_TEXT = 'ab'.repeat(32);

function context(): NativeZstdContext | undefined {
  if (ctx !== undefined || usable === false) return ctx;
  ctx = NativeZstdContext.open(new ZstdDecompress());
  if (usable === undefined) {
    const probe = new Uint8Array(65);
    usable = ctx !== undefined && inflate(ctx, PROBE, 64, probe) && inflate(ctx, PROBE, 64, probe) && Buffer.from(probe.subarray(0, 64)).toString('latin1') === PROBE_TEXT;
    if (!usable) {
      ctx?.close();
      ctx = undefined;
    }
  }
  return ctx;
}

/**
 * inflateTransient decodes a zstd frame through a reused context and returns a view of a shared
 * buffer, valid until the next call (callers consume it at once; JS runs one call at a time).
 * Returns undefined when the fast path cannot take the frame or fails on it (damaged data, or
 * a declared size above maxBytes): the caller then decodes it with zstdDecompressSync, which
 * reports the error.
 */
export function inflateTransient(frame: Uint8Array, maxBytes: number): Uint8Array | undefined {
  const size = frameContentSize(frame);
  if (size < 0 || size > maxBytes) return undefined;
  const c = context();
  if (c === undefined) return undefined;
  if (out.length <= size) out = new Uint8Array(Math.max(size + 1, out.length * 2));
  const view = out.subarray(0, size + 1);
  if (inflate(c, frame, size, view)) return out.subarray(0, size);
  c.close();
  ctx = undefined;
  return undefined;
}

// inflate decodes one whole frame of exactly size bytes into out (out.length > size): one spare
// output byte, so a frame that decodes to exactly size leaves it unused and the context at the
// start of the next frame.
function inflate(c: NativeZstdContext, frame: Uint8Array, size: number, out: Uint8Array): boolean {
  return c.endFrame(frame, out) === size;
}
