import { constants, type ZstdCompress, type ZstdDecompress } from 'node:zlib';

// node:zlib's zstdCompressSync and zstdDecompressSync build a Transform stream and a native zstd
// context for every call, which costs more than compressing or inflating one small block. A
// NativeZstdContext keeps one stream and feeds whole inputs through its native handle. That
// handle is not a documented API: open refuses a Node.js that does not expose it, and the users
// (zstd-compressor.ts, zstd-decompressor.ts) self-test their fast path at first use and hand a
// call it cannot finish back to the *Sync function.

interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

interface EngineInternals {
  _handle?: NativeHandle | null;
  _writeState?: Uint32Array;
}

/** NativeZstdContext is one native compression or decompression context, reused across frames. */
export class NativeZstdContext {
  readonly #engine: ZstdCompress | ZstdDecompress;
  readonly #handle: NativeHandle;
  readonly #state: Uint32Array;

  private constructor(engine: ZstdCompress | ZstdDecompress, handle: NativeHandle, state: Uint32Array) {
    this.#engine = engine;
    this.#handle = handle;
    this.#state = state;
  }

  /** open takes over a fresh stream, or destroys it and returns undefined when its handle is not usable. */
  static open(engine: ZstdCompress | ZstdDecompress): NativeZstdContext | undefined {
    // A coding error destroys the stream, which then emits 'error' on the next tick.
    engine.on('error', () => {});
    const { _handle: handle, _writeState: state } = engine as unknown as EngineInternals;
    if (typeof handle?.writeSync !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
      engine.destroy();
      return undefined;
    }
    return new NativeZstdContext(engine, handle, state);
  }

  /**
   * endFrame feeds all of input with ZSTD_e_end and returns how many bytes it wrote to out, or -1
   * when it did not take the whole input or the stream failed (the context is then unusable).
   * Output that fills out exactly may be unfinished: callers leave a spare byte.
   */
  endFrame(input: Uint8Array, out: Uint8Array): number {
    this.#handle.writeSync(constants.ZSTD_e_end, input, 0, input.length, out, 0, out.length);
    if (this.#engine.destroyed) return -1;
    const availOut = this.#state[0]!;
    const availIn = this.#state[1]!;
    return availIn === 0 ? out.length - availOut : -1;
  }

  close(): void {
    this.#engine.destroy();
  }
}
