import type { ByteWriter } from '../../bytes/index.ts';
import { blockZstdLevel, maybeCompressTransient } from './zstd.ts';

// Timestamps of a block are strictly ascending integers in ms. The first one is kept by the
// caller (the block header's minTs), so the stream starts at the first delta. Scrapes at a fixed
// interval give one constant delta, stored once; jittered scrapes give small delta-of-deltas,
// followed by the last delta so that a reader can decode the newest samples backwards from the
// block's last timestamp (timestamps-decode.ts).

/** TS_CONST_DELTA: one uvarint delta shared by every step (nothing at all for one sample). */
export const TS_CONST_DELTA = 1;
/** TS_DELTA_OF_DELTA: uvarint first delta, then zigzag varint delta-of-deltas (read only). */
export const TS_DELTA_OF_DELTA = 2;
/** TS_DELTA_OF_DELTA_TAIL: TS_DELTA_OF_DELTA followed by uvarint last delta. */
export const TS_DELTA_OF_DELTA_TAIL = 3;
/** ENC_ZSTD is or-ed into an encoding byte when the stream is zstd-compressed. */
export const ENC_ZSTD = 0x80;

/** MAX_TIMESTAMP_ABS bounds accepted timestamps so delta-of-deltas stay exact (|dod| <= 2^52). */
export const MAX_TIMESTAMP_ABS = 2 ** 50;

/**
 * encodeTimestamps appends ts[start..end) (strictly ascending integers, at least one) to w and
 * returns the encoding byte. zstdLevel 0 disables compression; blocks of few rows stay raw (blockZstdLevel).
 */
export function encodeTimestamps(ts: Float64Array, start: number, end: number, w: ByteWriter, zstdLevel: number): number {
  const n = end - start;
  const begin = w.pos;
  if (n === 1) return TS_CONST_DELTA;
  const d0 = ts[start + 1]! - ts[start]!;
  let constant = true;
  for (let i = start + 2; i < end; i++) {
    if (ts[i]! - ts[i - 1]! !== d0) {
      constant = false;
      break;
    }
  }
  w.writeUvarint(d0);
  if (constant) return TS_CONST_DELTA;
  let prevDelta = d0;
  for (let i = start + 2; i < end; i++) {
    const d = ts[i]! - ts[i - 1]!;
    w.writeVarint(d - prevDelta);
    prevDelta = d;
  }
  w.writeUvarint(prevDelta);
  const level = blockZstdLevel(zstdLevel, n);
  if (level > 0) {
    const packed = maybeCompressTransient(w.buf.subarray(begin, w.pos), level);
    if (packed) {
      w.pos = begin;
      w.writeBytes(packed);
      return TS_DELTA_OF_DELTA_TAIL | ENC_ZSTD;
    }
  }
  return TS_DELTA_OF_DELTA_TAIL;
}
