import { ZstdCompress, constants, zstdCompressSync } from 'node:zlib';
import { NativeZstdContext } from './zstd-native.ts';

// node:zlib's zstdCompressSync builds a Transform stream and a native compression context for
// every call: during an ingest, building and closing them took more of the background thread
// than compressing (flushes and merges compress two small blocks per series and part). This module
// keeps one context per level (zstd-native.ts), as zstd-decompressor.ts does for reads. A frame compressed in one ZSTD_e_end call is the frame
// zstdCompressSync makes (the input size is known, so the header states it); the handle is not a
// documented API, so the fast path is used only after a self-test at first use that compares its
// frames with zstdCompressSync's, and a call it cannot finish is handed back to the caller.

const contexts = new Map<number, NativeZstdContext>();
let usable: boolean | undefined;
let out = new Uint8Array(1 << 16);

// boundOf is above ZSTD_compressBound(n) (n + n/256 + 64 for the inputs here), plus the spare byte.
const boundOf = (n: number) => n + (n >> 7) + 128;

function probeInputs(): Uint8Array[] {
  const text = new TextEncoder().encode('node_cpu_seconds_total{cpu="0",mode="idle"} 1125549.96 1795662060000\n'.repeat(40));
  const noise = new Uint8Array(3000);
  let x = 12345;
  for (let i = 0; i < noise.length; i++) noise[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return [text, noise, text.subarray(7, 600), new Uint8Array(700)];
}

function context(level: number): NativeZstdContext | undefined {
  if (usable === false) return undefined;
  let c = contexts.get(level);
  if (c !== undefined) return c;
  c = NativeZstdContext.open(new ZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: level } }));
  if (c === undefined) {
    usable = false;
    return undefined;
  }
  if (usable === undefined) {
    // Twice through each input: the context must come back to a clean state after every frame.
    const inputs = probeInputs();
    usable = [...inputs, ...inputs].every((raw) => {
      const want = zstdCompressSync(raw, { params: { [constants.ZSTD_c_compressionLevel]: level } });
      const got = deflateWith(c!, raw);
      return got !== undefined && Buffer.from(got).equals(want);
    });
    if (!usable) {
      c.close();
      return undefined;
    }
  }
  contexts.set(level, c);
  return c;
}

function deflateWith(c: NativeZstdContext, raw: Uint8Array): Uint8Array | undefined {
  const bound = boundOf(raw.length);
  if (out.length < bound) out = new Uint8Array(Math.max(bound, out.length * 2));
  // With output space left over, ZSTD_e_end has written the whole frame.
  const n = c.endFrame(raw, out.subarray(0, bound));
  return n < 0 || n >= bound ? undefined : out.subarray(0, n);
}

/**
 * deflateTransient compresses raw into one zstd frame at level through a reused context and
 * returns a view of a shared buffer, valid until the next call (callers copy it at once; JS runs
 * one call at a time). Undefined when the fast path is not available or failed (the caller then
 * uses zstdCompressSync).
 */
export function deflateTransient(raw: Uint8Array, level: number): Uint8Array | undefined {
  const c = context(level);
  if (c === undefined) return undefined;
  const got = deflateWith(c, raw);
  if (got !== undefined) return got;
  c.close();
  contexts.delete(level);
  return undefined;
}
