import { readSync } from 'node:fs';
import { CorruptDataError } from '../common/errors.ts';
import { lowerBound } from '../common/sorted.ts';
import type { BlockHeaders } from './part-format.ts';

// A search knows, before it reads a block, every series it will ask for next (the sorted IDs of
// the matching series) and its time range, and the header group holds the file offsets of the
// blocks that follow. So on a miss a SpanReader reads, in one pread, the asked block and the
// next blocks of its header group that the search will want too, as long as the bytes between
// two wanted blocks stay small. A search that wants one series in twenty (an instant query of
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

/** SpanReader serves the stored stream of blocks from one file of a part (timestamps or values). */
export class SpanReader {
  readonly #fd: number;
  readonly #vals: boolean;
  readonly #wanted: Wanted | undefined;
  #buf = Buffer.allocUnsafe(0);
  #start = 0;
  #end = 0;

  /** vals picks the value stream's offsets and sizes (else the timestamp stream's). */
  constructor(fd: number, vals: boolean, wanted: Wanted | undefined) {
    this.#fd = fd;
    this.#vals = vals;
    this.#wanted = wanted;
  }

  /** read returns the stored stream of block j of h, a view valid until the next call. */
  read(h: BlockHeaders, j: number, what: string): Buffer {
    const offs = this.#vals ? h.valOffsets : h.tsOffsets;
    const sizes = this.#vals ? h.valSizes : h.tsSizes;
    const offset = offs[j]!;
    const size = sizes[j]!;
    if (offset < this.#start || offset + size > this.#end) {
      const end = this.#spanEnd(h, j, offs, sizes, offset + size);
      const want = end - offset;
      if (this.#buf.length < want) this.#buf = Buffer.allocUnsafe(Math.max(want, 2 * this.#buf.length, 4096));
      const n = readSync(this.#fd, this.#buf, 0, want, offset);
      if (n < size) throw new CorruptDataError(`cannot read ${what}: short read (${n} of ${size} bytes at ${offset})`);
      this.#start = offset;
      this.#end = offset + n;
    }
    return this.#buf.subarray(offset - this.#start, offset - this.#start + size);
  }

  // spanEnd extends a read that ends at end over the next wanted blocks of h after j (blocks are
  // stored in header order, so offsets ascend; anything else ends the span).
  #spanEnd(h: BlockHeaders, j: number, offs: Float64Array, sizes: Uint32Array, end: number): number {
    const w = this.#wanted;
    if (w === undefined) return end;
    const start = offs[j]!;
    const { ids, minTs, maxTs } = w;
    let p = lowerBound(ids, h.seriesIds[j]!);
    let k = j + 1;
    let prev = end;
    for (; k < h.count; k++) {
      const o = offs[k]!;
      if (o < prev || o - end > SPAN_GAP_BYTES) break;
      const e = o + sizes[k]!;
      if (e - start > SPAN_MAX_BYTES) break;
      prev = e;
      const id = h.seriesIds[k]!;
      while (p < ids.length && ids[p]! < id) p++;
      if (p === ids.length) return end;
      if (ids[p] === id && h.maxTs[k]! >= minTs && h.minTs[k]! <= maxTs) end = e;
    }
    // The group ended with wanted series still to come: the next group's first blocks follow in
    // the file, so take a gap's worth of them too (timestamp blocks of a few bytes each would
    // otherwise cost a read per header group).
    const more = k === h.count && ids[ids.length - 1]! > h.seriesIds[h.count - 1]!;
    return more ? Math.min(start + SPAN_MAX_BYTES, Math.max(end, prev + SPAN_GAP_BYTES)) : end;
  }
}

