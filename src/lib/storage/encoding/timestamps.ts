import type { ByteWriter } from './bytes.ts';
import { StreamCursor, unzigzag } from './stream-cursor.ts';
import { decompressTransient, maybeCompress } from './zstd.ts';
import { CorruptDataError } from '../errors.ts';

// Timestamps of a block are strictly ascending integers in ms. The first one is kept by the
// caller (the block header's minTs), so the stream starts at the first delta. Scrapes at a fixed
// interval give one constant delta, stored once; jittered scrapes give small delta-of-deltas.

const cursor = new StreamCursor();

/** TS_CONST_DELTA: one uvarint delta shared by every step (nothing at all for one sample). */
export const TS_CONST_DELTA = 1;
/** TS_DELTA_OF_DELTA: uvarint first delta, then zigzag varint delta-of-deltas. */
export const TS_DELTA_OF_DELTA = 2;
/** ENC_ZSTD is or-ed into an encoding byte when the stream is zstd-compressed. */
export const ENC_ZSTD = 0x80;

/** MAX_TIMESTAMP_ABS bounds accepted timestamps so delta-of-deltas stay exact (|dod| <= 2^52). */
export const MAX_TIMESTAMP_ABS = 2 ** 50;

/**
 * encodeTimestamps appends ts[start..end) (strictly ascending integers, at least one) to w and
 * returns the encoding byte. zstdLevel 0 disables compression.
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
  if (zstdLevel > 0) {
    const packed = maybeCompress(w.buf.subarray(begin, w.pos), zstdLevel);
    if (packed) {
      w.pos = begin;
      w.writeBytes(packed);
      return TS_DELTA_OF_DELTA | ENC_ZSTD;
    }
  }
  return TS_DELTA_OF_DELTA;
}

/**
 * decodeTimestamps writes n timestamps starting at firstTs into out[off..off+n) from a stream
 * made by encodeTimestamps. Throws CorruptDataError naming `what` on malformed input, including
 * timestamps that do not strictly ascend (readers rely on that to skip sorting).
 */
export function decodeTimestamps(enc: number, data: Uint8Array, n: number, firstTs: number, out: Float64Array, off: number, what: string): void {
  if (n < 1 || off + n > out.length) throw new CorruptDataError(`cannot decode ${what}: bad sample count ${n}`);
  if (enc & ENC_ZSTD) data = decompressTransient(data, n * 9 + 16, what);
  const c = cursor;
  c.reset(data, what);
  out[off] = firstTs;
  const kind = enc & ~ENC_ZSTD;
  if (kind !== TS_CONST_DELTA && kind !== TS_DELTA_OF_DELTA) c.fail(`unknown timestamp encoding ${enc}`);
  if (n > 1 && kind === TS_CONST_DELTA) {
    const d = c.uvarint();
    if (d === 0) c.fail('zero timestamp delta');
    for (let i = 1; i < n; i++) out[off + i] = firstTs + i * d;
  } else if (n > 1) {
    decodeDeltaOfDelta(c, n, firstTs, out, off);
  }
  c.done();
  c.release();
}

function decodeDeltaOfDelta(c: StreamCursor, n: number, firstTs: number, out: Float64Array, off: number): void {
  let d = c.uvarint();
  let t = firstTs + d;
  out[off + 1] = t;
  let minDelta = d;
  const b = c.bytes;
  const end = c.end;
  let p = c.pos;
  for (let i = off + 2, last = off + n; i < last; i++) {
    let z: number;
    if (p < end && (z = b[p]!) < 0x80) p++;
    else {
      c.pos = p;
      z = c.uvarint();
      p = c.pos;
    }
    d += unzigzag(z);
    if (d < minDelta) minDelta = d;
    t += d;
    out[i] = t;
  }
  c.pos = p;
  if (minDelta <= 0) c.fail('timestamps do not ascend');
}
