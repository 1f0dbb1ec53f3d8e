// Memory for rollup batches and their results, reused from one batch to the next.
//
// Why: a batch of ~90 series over 1,440 steps needs ~1.3 MiB of results and ~0.2 MiB of blocks.
// Fresh buffers of that size are fresh pages (the launchers set MALLOC_MMAP_THRESHOLD_=65536, so
// each is an mmap of its own, and V8 never reuses a freed ArrayBuffer's memory): on the S workload
// r:sum_by_rate took ~12,000 page faults per query through the work unit against ~330 in the
// engine's own loop, and faulting in those pages was the unit's "slower rate sweep" (the profile
// put it on the sweep's first write to each output page). Buffers come back here once a worker
// has read a batch and once the query has read a result, and are handed out again.

/** BufferPoolOptions bound a BufferPool. */
export interface BufferPoolOptions {
  /** maxBytes: free memory kept at most; a buffer given back beyond it is left to the GC. */
  readonly maxBytes: number;
  /** idleMs: free buffers are dropped after this long without a take (memory goes back). */
  readonly idleMs?: number;
}

/**
 * BufferPool hands out ArrayBuffers of at least a requested size, preferring a free one (at most
 * twice the size, the smallest that fits). Sizes are rounded up to an eighth of their power of
 * two, so batches of slightly different sizes share buffers at ≤ 12.5% waste.
 */
export class BufferPool {
  readonly #o: BufferPoolOptions;
  #free: ArrayBuffer[] = [];
  #bytes = 0;
  #lastTake = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: BufferPoolOptions) {
    this.#o = o;
  }

  /** freeBytes: the memory kept for reuse now. */
  get freeBytes(): number {
    return this.#bytes;
  }

  /** take returns a buffer of at least size bytes (contents undefined: the caller clears what it reads). */
  take(size: number): ArrayBuffer {
    this.#lastTake = performance.now();
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const len = this.#free[i]!.byteLength;
      if (len >= size && len <= 2 * size + 4096 && (best < 0 || len < this.#free[best]!.byteLength)) best = i;
    }
    if (best < 0) return new ArrayBuffer(roundUp(size));
    const b = this.#free[best]!;
    this.#free[best] = this.#free[this.#free.length - 1]!;
    this.#free.pop();
    this.#bytes -= b.byteLength;
    return b;
  }

  /** give returns a buffer nobody reads any more (a detached one, length 0, is ignored). */
  give(b: ArrayBuffer): void {
    const len = b.byteLength;
    if (len === 0 || this.#bytes + len > this.#o.maxBytes) return;
    this.#free.push(b);
    this.#bytes += len;
    this.#dropWhenIdle();
  }

  /** clear drops every free buffer. */
  clear(): void {
    this.#free = [];
    this.#bytes = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #dropWhenIdle(): void {
    if (this.#timer !== undefined) return;
    const idleMs = this.#o.idleMs ?? 10_000;
    const check = (): void => {
      const idle = performance.now() - this.#lastTake;
      if (idle >= idleMs) {
        this.clear();
        return;
      }
      this.#timer = setTimeout(check, idleMs - idle);
      this.#timer.unref();
    };
    this.#timer = setTimeout(check, idleMs);
    this.#timer.unref();
  }
}

// roundUp: size rounded up to a multiple of 1/8 of its power of two (at least 4 KiB).
function roundUp(size: number): number {
  if (size <= 4096) return 4096;
  const grain = 2 ** (Math.floor(Math.log2(size)) - 3);
  return Math.ceil(size / grain) * grain;
}
