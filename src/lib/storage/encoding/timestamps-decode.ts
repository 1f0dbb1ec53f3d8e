import { ByteReader, CorruptDataError, unzigzag } from '../../bytes/index.ts';
import { ENC_ZSTD, TS_CONST_DELTA, TS_DELTA_OF_DELTA, TS_DELTA_OF_DELTA_TAIL } from './timestamps.ts';
import { decompressTransient } from './zstd.ts';

// Decoding of the streams timestamps.ts writes. Every decoded timestamp is checked to ascend
// strictly: readers rely on that to skip sorting a series read from one part.

const cursor = new ByteReader<Uint8Array>(new Uint8Array(0), '');

function open(enc: number, data: Uint8Array, n: number, out: Float64Array, off: number, what: string): ByteReader {
  if (n < 1 || off + n > out.length) throw new CorruptDataError(`cannot decode ${what}: bad sample count ${n}`);
  if (enc & ENC_ZSTD) data = decompressTransient(data, n * 9 + 16, what);
  cursor.reset(data, what);
  const kind = enc & ~ENC_ZSTD;
  if (kind !== TS_CONST_DELTA && kind !== TS_DELTA_OF_DELTA && kind !== TS_DELTA_OF_DELTA_TAIL) cursor.fail(`unknown timestamp encoding ${enc}`);
  return cursor;
}

/**
 * decodeTimestamps writes the n timestamps of a block, the first being firstTs, into
 * out[off..off+n) from a stream made by encodeTimestamps. Throws CorruptDataError naming `what`
 * on malformed input.
 */
export function decodeTimestamps(enc: number, data: Uint8Array, n: number, firstTs: number, out: Float64Array, off: number, what: string): void {
  const c = open(enc, data, n, out, off, what);
  const kind = enc & ~ENC_ZSTD;
  out[off] = firstTs;
  if (n > 1 && kind === TS_CONST_DELTA) {
    const d = c.readUvarint();
    if (d === 0) c.fail('zero timestamp delta');
    for (let i = 1; i < n; i++) out[off + i] = firstTs + i * d;
  } else if (n > 1) {
    const last = decodeForward(c, n, firstTs, out, off);
    if (kind === TS_DELTA_OF_DELTA_TAIL && c.readUvarint() !== last) c.fail('last delta does not match');
  }
  c.done();
  c.release();
}

// decodeForward decodes a delta-of-delta stream and returns the last delta.
function decodeForward(c: ByteReader, n: number, firstTs: number, out: Float64Array, off: number): number {
  let d = c.readUvarint();
  let t = firstTs + d;
  out[off + 1] = t;
  let minDelta = d;
  const b = c.buf;
  const end = c.end;
  let p = c.pos;
  for (let i = off + 2, last = off + n; i < last; i++) {
    let z: number;
    if (p < end && (z = b[p]!) < 0x80) p++;
    else {
      c.pos = p;
      z = c.readUvarint();
      p = c.pos;
    }
    d += unzigzag(z);
    if (d < minDelta) minDelta = d;
    t += d;
    out[i] = t;
  }
  c.pos = p;
  if (minDelta <= 0) c.fail('timestamps do not ascend');
  return d;
}

/**
 * decodeTimestampsTail decodes only the newest timestamps of a block: those >= minTs, which it
 * writes at their places out[off+lo..off+n), and returns lo, the index of the first of them
 * (n − 1 when even the last is older; the last one is always written). lastTs is the block's
 * last timestamp (its header's maxTs). Streams that cannot be read backwards are decoded whole.
 */
export function decodeTimestampsTail(enc: number, data: Uint8Array, n: number, firstTs: number, lastTs: number, minTs: number, out: Float64Array, off: number, what: string): number {
  const kind = enc & ~ENC_ZSTD;
  if (kind === TS_CONST_DELTA && n > 1) {
    const c = open(enc, data, n, out, off, what);
    const d = c.readUvarint();
    if (d === 0) c.fail('zero timestamp delta');
    c.done();
    c.release();
    if (firstTs + (n - 1) * d !== lastTs) throw new CorruptDataError(`cannot decode ${what}: timestamps do not end at the last timestamp`);
    let lo = Math.min(n - 1, Math.max(0, Math.ceil((minTs - firstTs) / d)));
    // The division may round across an integer for huge deltas: settle lo exactly.
    while (lo > 0 && firstTs + (lo - 1) * d >= minTs) lo--;
    while (lo < n - 1 && firstTs + lo * d < minTs) lo++;
    for (let i = lo; i < n; i++) out[off + i] = firstTs + i * d;
    return lo;
  }
  if (kind !== TS_DELTA_OF_DELTA_TAIL || n < 3) {
    decodeTimestamps(enc, data, n, firstTs, out, off, what);
    let lo = n - 1;
    while (lo > 0 && out[off + lo - 1]! >= minTs) lo--;
    return lo;
  }
  const c = open(enc, data, n, out, off, what);
  const start = c.readUvarint(); // the first delta; the second differences follow it
  const regionStart = c.pos;
  c.pos = c.end;
  let d = c.readUvarintBefore(regionStart);
  let t = lastTs;
  out[off + n - 1] = t;
  let i = n - 1;
  while (i > 0) {
    if (d <= 0) c.fail('timestamps do not ascend');
    const prev = t - d;
    if (prev < minTs) break;
    t = prev;
    out[off + i - 1] = t;
    // d becomes the delta before it: dᵢ₋₁ = dᵢ − (dᵢ − dᵢ₋₁); the stream holds that second difference for i >= 2.
    if (i >= 2) d -= c.readVarintBefore(regionStart);
    i--;
  }
  if (i === 0 && (t !== firstTs || d !== start || c.pos !== regionStart)) c.fail('timestamps do not start at the first timestamp');
  c.release();
  return i;
}
