import { ZstdCompress, constants, zstdCompressSync } from 'node:zlib';

// node:zlib's zstdCompressSync builds a Transform stream and a native compression context for
// every call: during an ingest, building and closing them took more of the background thread
// than compressing (flushes and merges compress two small blocks per series and part). This module
// keeps one context per level and feeds it whole inputs through the stream's native handle, as
// zstd-decompressor.ts does for reads. A frame compressed in one ZSTD_e_end call is the frame
// zstdCompressSync makes (the input size is known, so the header states it); the handle is not a
// documented API, so the fast path is used only after a self-test at first use that compares its
// frames with zstdCompressSync's, and a call it cannot finish is handed back to the caller.

interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

interface EngineInternals {
  _handle?: NativeHandle | null;
  _writeState?: Uint32Array;
}

/** Context is one native compression context at one level, reused across frames. */
class Context {
  readonly #engine: ZstdCompress;
  readonly #handle: NativeHandle;
  readonly #state: Uint32Array;

  private constructor(engine: ZstdCompress, handle: NativeHandle, state: Uint32Array) {
    this.#engine = engine;
    this.#handle = handle;
    this.#state = state;
  }

  /** open returns a context, or undefined when this Node.js does not expose what it needs. */
  static open(level: number): Context | undefined {
    const engine = new ZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: level } });
    engine.on('error', () => {});
    const { _handle: handle, _writeState: state } = engine as unknown as EngineInternals;
    if (typeof handle?.writeSync !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
      engine.destroy();
      return undefined;
    }
    return new Context(engine, handle, state);
  }

  /**
   * deflate compresses raw as one frame into out; returns the frame's length, or -1 when it did
   * not finish (out too small, or an error: the context is then unusable).
   */
  deflate(raw: Uint8Array, out: Uint8Array): number {
    this.#handle.writeSync(constants.ZSTD_e_end, raw, 0, raw.length, out, 0, out.length);
    if (this.#engine.destroyed) return -1;
    const availOut = this.#state[0]!;
    const availIn = this.#state[1]!;
    // With output space left over, ZSTD_e_end has written the whole frame.
    return availIn === 0 && availOut > 0 ? out.length - availOut : -1;
  }

  close(): void {
    this.#engine.destroy();
  }
}

const contexts = new Map<number, Context>();
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

function context(level: number): Context | undefined {
  if (usable === false) return undefined;
  let c = contexts.get(level);
  if (c !== undefined) return c;
  c = Context.open(level);
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

function deflateWith(c: Context, raw: Uint8Array): Uint8Array | undefined {
  const bound = boundOf(raw.length);
  if (out.length < bound) out = new Uint8Array(Math.max(bound, out.length * 2));
  const n = c.deflate(raw, out.subarray(0, bound));
  return n < 0 ? undefined : out.subarray(0, n);
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
