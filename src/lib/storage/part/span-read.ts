import { readSync } from 'node:fs';
import { CorruptDataError } from '../common/errors.ts';
import { FreeList } from '../common/free-list.ts';
import { lowerBound } from '../common/sorted.ts';
import type { BlockHeaders } from './part-format.ts';

// A search knows, before it reads a block, every series it will ask for next (the sorted IDs of
// the matching series) and its time range, and the header group holds the file offsets of the
// blocks that follow. So on a miss a SpanReader reads, in one pread, the asked block and the
// next blocks of its header group that the search will want too, as long as the bytes between
// two wanted blocks stay small, and on past the group's end over the wanted blocks expected
// there (spanEnd). A search that wants one series in twenty (an instant query of
// one metric) then costs about one read per group of nearby wanted blocks, of about the bytes
// it decodes; a guessing read-ahead either read a block at a time or copied up to 128 KiB of
// other series' blocks per read (measured: 298 reads, 2.5 MB copied for i:binary_ratio's ~348
// blocks of ~0.6 MB; bench/RESULTS.md, "Issue 18, third session", storage reads).

/**
 * SPAN_GAP_BYTES: unwanted bytes a read spans to reach the next wanted block. Measured on the
 * bench machine: a pread from the page cache costs ~4 µs plus ~0.07 µs per KiB copied, so
 * copying 32 KiB costs about half of one more pread.
 */
export const SPAN_GAP_BYTES = 32 * 1024;
/** SPAN_MAX_BYTES caps one read (a single larger block is read alone). */
export const SPAN_MAX_BYTES = 128 * 1024;

/** Wanted says which blocks a search will read: those of series in ids (ascending) overlapping [minTs, maxTs]. */
export interface Wanted {
  readonly ids: Float64Array;
  readonly minTs: number;
  readonly maxTs: number;
}

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * ReadBufferPool lends SpanReaders read buffers of SPAN_MAX_BYTES across searches. A fresh
 * buffer of that size is an mmap of its own under the launcher's 64 KiB malloc mmap threshold
 * (src/lib/process/tuning.ts), so every search paid its page faults again (L, 3 parts: 225
 * against 100 minor faults per instant query). It keeps at most maxKept buffers.
 */
export class ReadBufferPool extends FreeList<Buffer> {
  constructor(maxKept = 8) {
    super(() => Buffer.allocUnsafe(SPAN_MAX_BYTES), maxKept);
  }

  /** give hands b back once its reader is done with it (buffers of another size are dropped). */
  override give(b: Buffer): void {
    if (b.length === SPAN_MAX_BYTES) super.give(b);
  }
}

/**
 * SpanReader serves the stored stream of blocks from one file of a part (timestamps or values).
 * With a pool, its buffer comes from the pool on the first read and goes back on release.
 */
export class SpanReader {
  readonly #fd: number;
  readonly #vals: boolean;
  readonly #wanted: Wanted | undefined;
  readonly #pool: ReadBufferPool | undefined;
  #buf: Buffer = EMPTY;
  #start = 0;
  #end = 0;

  /** vals picks the value stream's offsets and sizes (else the timestamp stream's). */
  constructor(fd: number, vals: boolean, wanted: Wanted | undefined, pool?: ReadBufferPool) {
    this.#fd = fd;
    this.#vals = vals;
    this.#wanted = wanted;
    this.#pool = pool;
  }

  /** release gives the buffer back to the pool; the reader stays usable (it takes another). */
  release(): void {
    if (this.#buf !== EMPTY) this.#pool?.give(this.#buf);
    this.#buf = EMPTY;
    this.#start = 0;
    this.#end = 0;
  }

  /** read returns the stored stream of block j of h, a view valid until the next call. */
  read(h: BlockHeaders, j: number, what: string): Buffer {
    const offs = this.#vals ? h.valOffsets : h.tsOffsets;
    const sizes = this.#vals ? h.valSizes : h.tsSizes;
    const offset = offs[j]!;
    const size = sizes[j]!;
    if (offset < this.#start || offset + size > this.#end) {
      const end = this.#wanted === undefined ? offset + size : spanEnd(h, j, offs, sizes, this.#wanted);
      const want = end - offset;
      if (this.#buf.length < want) this.#grow(want);
      const n = readSync(this.#fd, this.#buf, 0, want, offset);
      if (n < size) throw new CorruptDataError(`cannot read ${what}: short read (${n} of ${size} bytes at ${offset})`);
      this.#start = offset;
      this.#end = offset + n;
    }
    return this.#buf.subarray(offset - this.#start, offset - this.#start + size);
  }

  #grow(want: number): void {
    const pool = want <= SPAN_MAX_BYTES ? this.#pool : undefined;
    const size = Math.max(want, 2 * this.#buf.length, 4096);
    this.release();
    this.#buf = pool !== undefined ? pool.take() : Buffer.allocUnsafe(size);
  }
}

/**
 * spanEnd returns where a read of block j of h's stream (offs and sizes: the timestamp or value
 * stream's) ends for a search that wants w: past block j, and on over the next blocks of h that w
 * wants while the unwanted bytes between two of them stay within SPAN_GAP_BYTES and the read
 * within SPAN_MAX_BYTES (blocks are stored in header order, so offsets ascend; anything else
 * ends the span). It jumps from one wanted series to the next by binary search instead of
 * walking the blocks between them: a search of one metric wants about one series in hundreds.
 */
export function spanEnd(h: BlockHeaders, j: number, offs: Float64Array, sizes: Uint32Array, w: Wanted): number {
  const start = offs[j]!;
  let end = start + sizes[j]!;
  const { ids, minTs, maxTs } = w;
  const count = h.count;
  let p = lowerBound(ids, h.seriesIds[j]!);
  let k = j + 1;
  let prev = end;
  while (k < count) {
    const id = h.seriesIds[k]!;
    if (ids[p]! < id) p = lowerBound(ids, id, p);
    if (p === ids.length) return end;
    if (ids[p] !== id) {
      k = lowerBound(h.seriesIds, ids[p]!, k + 1);
      continue;
    }
    const o = offs[k]!;
    if (o < prev || o - end > SPAN_GAP_BYTES) return end;
    const e = o + sizes[k]!;
    if (e - start > SPAN_MAX_BYTES) return end;
    prev = e;
    if (h.maxTs[k]! >= minTs && h.minTs[k]! <= maxTs) end = e;
    k++;
  }
  // The group ended with wanted series still to come, and the next group's blocks follow in
  // the file. Their headers are not at hand, so the span goes on over the wanted series
  // expected within a gap of each other, placed by this group's bytes per series ID (a guess
  // only decides how much one read copies). Without it a read stopped at every group's end:
  // with one series in ~170 wanted, 387 reads of ~45 KB per search at L with 3 parts.
  const last = h.seriesIds[count - 1]!;
  if (ids[ids.length - 1]! <= last) return end;
  const lastO = offs[count - 1]!;
  const lastE = lastO + sizes[count - 1]!;
  if (lastE < prev || lastO - end > SPAN_GAP_BYTES || lastE - start > SPAN_MAX_BYTES) return end;
  const perId = (lastE - start) / (last - h.seriesIds[j]! + 1);
  let reach = Math.max(end, lastE);
  for (let q = lowerBound(ids, last + 1, p); q < ids.length; q++) {
    const e = lastE + (ids[q]! - last) * perId;
    if (e - perId - reach > SPAN_GAP_BYTES || e - start > SPAN_MAX_BYTES) break;
    reach = e;
  }
  return Math.min(start + SPAN_MAX_BYTES, Math.max(reach, lastE + SPAN_GAP_BYTES));
}
