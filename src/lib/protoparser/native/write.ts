// Native format encoder (see FORMAT.md). Streaming: write header() once, then encodeSeries() per
// series; each call returns the complete blocks of that series.

import zlib from 'node:zlib';
import type { Labels } from '../common/row.ts';
import { ByteWriter } from '../../bytes/index.ts';

/** MAGIC and VERSION open every native stream. */
export const MAGIC = Buffer.from('STNB', 'latin1');
export const VERSION = 1;
/** MAX_BLOCK_BYTES is the largest payload a block may have. */
export const MAX_BLOCK_BYTES = 16 * 1024 * 1024;
/** MAX_SAMPLES_PER_BLOCK is the most samples one block may hold. */
export const MAX_SAMPLES_PER_BLOCK = 65_536;
/** DEFAULT_SAMPLES_PER_BLOCK is how many samples the encoder puts in a block. */
export const DEFAULT_SAMPLES_PER_BLOCK = 8192;

export const KIND_SERIES = 1;
export const TS_DOD = 1;
export const TS_RAW = 2;
export const VAL_RAW = 1;
export const VAL_XOR = 2;
export const VAL_INT = 3;

/** header returns the 8-byte stream header. */
export function header(): Buffer {
  return Buffer.concat([MAGIC, Buffer.from([VERSION, 0, 0, 0])]);
}

/**
 * encodeSeries returns the blocks of one series: labels (sorted, as storage returns them),
 * timestamps in integer ms (safe integers) and values (a Float64Array keeps NaN payloads such as
 * staleness markers). Long series are split into blocks of samplesPerBlock samples. Throws
 * RangeError on a programming error (length mismatch, bad timestamp, oversized labels).
 */
export function encodeSeries(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>, samplesPerBlock = DEFAULT_SAMPLES_PER_BLOCK): Buffer {
  const n = timestamps.length;
  if (n !== values.length) throw new RangeError(`series has ${n} timestamps but ${values.length} values`);
  if (labels.length === 0) throw new RangeError('series has no labels');
  const per = Math.min(MAX_SAMPLES_PER_BLOCK, Math.max(1, Math.floor(samplesPerBlock)));
  const labelBytes = encodeLabels(labels);
  const out: Buffer[] = [];
  for (let from = 0; from < n; from += per) {
    const to = Math.min(n, from + per);
    const w = new ByteWriter();
    // Room for the worst case at once (10-byte timestamps, 9-byte values): no regrowth copies.
    w.ensure(labelBytes.length + 32 + (to - from) * 19);
    w.writeU8(KIND_SERIES);
    w.writeBytes(labelBytes);
    w.writeUvarint(to - from);
    writeTimestamps(w, timestamps, from, to);
    writeValues(w, values, from, to);
    out.push(frame(w.bytes()));
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out);
}

function encodeLabels(labels: Labels): Buffer {
  const w = new ByteWriter();
  w.writeUvarint(labels.length);
  for (const l of labels) {
    const name = Buffer.from(l.name, 'utf8');
    const value = Buffer.from(l.value, 'utf8');
    w.writeUvarint(name.length);
    w.writeBytes(name);
    w.writeUvarint(value.length);
    w.writeBytes(value);
  }
  if (w.pos > MAX_BLOCK_BYTES / 2) throw new RangeError(`labels take ${w.pos} bytes; at most ${MAX_BLOCK_BYTES / 2} fit a block`);
  return Buffer.from(w.bytes());
}

function frame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(zlib.crc32(payload), 4);
  payload.copy(out, 8);
  return out;
}

function writeTimestamps(w: ByteWriter, ts: ArrayLike<number>, from: number, to: number): void {
  let dodOk = true;
  for (let i = from; i < to; i++) {
    const t = ts[i]!;
    if (!Number.isSafeInteger(t)) throw new RangeError(`timestamp ${t} is not a safe integer`);
    if (i > from && !Number.isSafeInteger(t - ts[i - 1]!)) dodOk = false;
    if (i > from + 1 && !Number.isSafeInteger(t - ts[i - 1]! - (ts[i - 1]! - ts[i - 2]!))) dodOk = false;
  }
  if (!dodOk) {
    w.writeU8(TS_RAW);
    w.ensure((to - from) * 8);
    for (let i = from; i < to; i++) {
      w.buf.writeBigInt64LE(BigInt(ts[i]!), w.pos);
      w.pos += 8;
    }
    return;
  }
  w.writeU8(TS_DOD);
  w.writeVarint(ts[from]!);
  let prevDelta = 0;
  for (let i = from + 1; i < to; i++) {
    const delta = ts[i]! - ts[i - 1]!;
    w.writeVarint(i === from + 1 ? delta : delta - prevDelta);
    prevDelta = delta;
  }
}

function writeValues(w: ByteWriter, vs: ArrayLike<number>, from: number, to: number): void {
  let ints = true;
  for (let i = from; i < to && ints; i++) {
    const v = vs[i]!;
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) ints = false;
    else if (i > from && !Number.isSafeInteger(v - vs[i - 1]!)) ints = false;
  }
  if (ints) {
    w.writeU8(VAL_INT);
    w.writeVarint(vs[from]!);
    for (let i = from + 1; i < to; i++) w.writeVarint(vs[i]! - vs[i - 1]!);
    return;
  }
  w.writeU8(VAL_XOR);
  // At most 9 bytes a value: room for all of them once, then written straight into the buffer
  // (the hot path of every search a storage node streams).
  w.ensure((to - from) * 9);
  const buf = w.buf;
  let pos = w.pos;
  const cur = new DataView(new ArrayBuffer(8));
  const prev = new Uint8Array(8);
  const curBytes = new Uint8Array(cur.buffer);
  for (let i = from; i < to; i++) {
    cur.setFloat64(0, vs[i]!); // big-endian: most significant byte first
    if (i === from) {
      for (let k = 0; k < 8; k++) buf[pos++] = curBytes[k]!;
    } else {
      let lead = 0;
      while (lead < 8 && curBytes[lead] === prev[lead]) lead++;
      if (lead === 8) {
        buf[pos++] = 0x80;
      } else {
        let trail = 0;
        while (curBytes[7 - trail] === prev[7 - trail]) trail++;
        buf[pos++] = (lead << 4) | trail;
        for (let k = lead; k < 8 - trail; k++) buf[pos++] = curBytes[k]! ^ prev[k]!;
      }
    }
    for (let k = 0; k < 8; k++) prev[k] = curBytes[k]!;
  }
  w.pos = pos;
}
