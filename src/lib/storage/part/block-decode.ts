// The per-block and per-series steps of a search, shared by the storage engine's own search
// (search.ts, data-part.ts, block-cursors.ts) and by a cluster select node decoding the blocks a storage node
// shipped to it (series-blocks.ts): one definition of how a block becomes samples and of what a
// search applies to the samples of a series after decoding.

import { dedupByInterval, normalizeSamples } from '../../storageapi/dedup.ts';
import { decodeTimestamps, decodeTimestampsTail } from '../encoding/timestamps-decode.ts';
import { decodeValues, decodeValuesTail } from '../encoding/values-decode.ts';
import { CorruptDataError } from '../common/errors.ts';
import type { SeriesScratch } from './series-scratch.ts';

/** BlockFields are the header fields needed to decode one block (FORMAT.md "Data parts"). */
export interface BlockFields {
  readonly rows: number;
  readonly minTs: number;
  readonly maxTs: number;
  readonly tsEnc: number;
  readonly valEnc: number;
}

/** NaNReport is told when decoded values may hold a NaN (SeriesScratch.mayHoldNaN). */
export interface NaNReport {
  mayHoldNaN: boolean;
}

/**
 * decodeBlock decodes a block from its timestamp stream tsBytes and its value stream (vals() is
 * asked for it after the timestamps are decoded: a reader may reuse one buffer for both) into
 * outTs/outVals at off. Given fromTs above the block's minTs it decodes only the samples at or
 * after fromTs, at their places off+lo..: returns lo (0 when it decoded the whole block). nan,
 * when given, gets mayHoldNaN set (never cleared) unless the value encoding shows that no value
 * written is NaN (values-decode.ts decodeValues). Throws CorruptDataError naming `what`.
 */
export function decodeBlock(
  b: BlockFields, tsBytes: Uint8Array, vals: () => Uint8Array, outTs: Float64Array, outVals: Float64Array, off: number, what: string, fromTs = -Infinity,
  nan?: NaNReport,
): number {
  const n = b.rows;
  if (fromTs > b.minTs) {
    const lo = decodeTimestampsTail(b.tsEnc, tsBytes, n, b.minTs, b.maxTs, fromTs, outTs, off, what);
    if (decodeValuesTail(b.valEnc, vals(), n, lo, outVals, off, what) && nan !== undefined) nan.mayHoldNaN = true;
    return lo;
  }
  decodeTimestamps(b.tsEnc, tsBytes, n, b.minTs, outTs, off, what);
  if (outTs[off + n - 1] !== b.maxTs) throw new CorruptDataError(`cannot decode ${what}: timestamps do not end at the header's maxTs`);
  if (decodeValues(b.valEnc, vals(), n, outVals, off, what) && nan !== undefined) nan.mayHoldNaN = true;
  return 0;
}

/**
 * appendSourceBlock appends the samples of block b of one source (a part) to s, for a search of
 * [minTs, maxTs]. The blocks of one series in one part come in time order and never overlap
 * (checked against lastTs, the previous block's maxTs; -Infinity for the first), so a single
 * source needs no sort. A range that starts inside the block and reaches its end (instant
 * queries, recent windows) needs only the block's newest samples: decode(fromTs) is asked for
 * those, then the gap is closed. decode writes at s.ts/s.vals from s.n (room is made first).
 */
export function appendSourceBlock(s: SeriesScratch, b: BlockFields, lastTs: number, minTs: number, maxTs: number, decode: (fromTs: number) => number, what: string): void {
  if (!(b.minTs > lastTs)) throw new CorruptDataError(`cannot read ${what}: its blocks overlap in time`);
  const n = b.rows;
  s.ensure(n);
  const lo = maxTs >= b.maxTs ? decode(minTs) : decode(-Infinity);
  if (lo > 0) {
    s.ts.copyWithin(s.n, s.n + lo, s.n + n);
    s.vals.copyWithin(s.n, s.n + lo, s.n + n);
  }
  s.n += n - lo;
}

/**
 * finishSeries applies what a search applies to the samples of one series gathered in s. When
 * `unordered` (buffered rows, which hold rows in arrival order, or parts whose samples overlap or
 * do not each start after the previous part's): sort, resolve duplicates and deduplicate by
 * dedupMs (-dedup.minScrapeInterval). Otherwise the samples are already sorted and duplicate-free
 * (every part's own samples are, and each part's came after the previous one's): deduplicate
 * only. Returns [lo, hi): the samples inside [minTs, maxTs] (empty when lo === hi).
 */
export function finishSeries(s: SeriesScratch, unordered: boolean, dedupMs: number, minTs: number, maxTs: number): [number, number] {
  if (unordered) s.n = normalizeSamples(s.ts, s.vals, s.n, dedupMs);
  else if (dedupMs > 0) s.n = dedupByInterval(s.ts, s.vals, s.n, dedupMs);
  return [s.firstAtOrAfter(minTs), s.firstAfter(maxTs)];
}

/**
 * followsOn reports whether the samples one more source appended to s from index `from` start
 * after the samples before them (true when there were none before or none appended): sources
 * that each follow on keep s sorted and duplicate-free, so finishSeries need not sort them.
 */
export function followsOn(s: SeriesScratch, from: number): boolean {
  return from === 0 || from >= s.n || s.ts[from - 1]! < s.ts[from]!;
}
