// Native format decoder (see FORMAT.md): a push decoder over chunks of any size, robust to
// truncation and garbage (every length is bounded, every block is CRC-checked, errors name the
// absolute byte offset). After an error the decoder refuses further input.

import zlib from 'node:zlib';
import { ByteReader } from '../../bytes/index.ts';
import { ParseError } from '../common/parse-error.ts';
import { isLineFailure } from '../common/line-failure.ts';
import { canonicalLabels, type Label, type Row } from '../common/row.ts';
import { KIND_SERIES, MAGIC, MAX_BLOCK_BYTES, MAX_SAMPLES_PER_BLOCK, TS_DOD, TS_RAW, VAL_INT, VAL_RAW, VAL_XOR, VERSION } from './write.ts';

/** NativeSeries is the content of one block: labels and parallel timestamps (ms) and values. */
export interface NativeSeries {
  readonly labels: Label[];
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
}

/** NativeDecoderOptions bound what the decoder accepts. */
export interface NativeDecoderOptions {
  /** Largest accepted block payload (default and maximum: MAX_BLOCK_BYTES). */
  readonly maxBlockBytes?: number;
}

const HEADER_BYTES = 8;
const FRAME_BYTES = 8;

/** NativeDecoder decodes a native stream pushed in chunks. Not safe for concurrent use. */
export class NativeDecoder {
  readonly #maxBlock: number;
  #pending: Buffer[] = [];
  #pendingLen = 0;
  #offset = 0; // stream offset of the first pending byte
  #headerDone = false;
  #failed: ParseError | undefined;

  constructor(opts: NativeDecoderOptions = {}) {
    this.#maxBlock = Math.min(opts.maxBlockBytes ?? MAX_BLOCK_BYTES, MAX_BLOCK_BYTES);
  }

  /** push consumes a chunk and returns the series of every block it completed. Throws ParseError. */
  push(chunk: Uint8Array): NativeSeries[] {
    if (this.#failed) throw this.#failed;
    this.#pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.#pendingLen += chunk.byteLength;
    const out: NativeSeries[] = [];
    try {
      this.#drain(out);
    } catch (e) {
      if (e instanceof ParseError) this.#failed = e;
      throw e;
    }
    return out;
  }

  /** end checks that the stream stopped at a block boundary. Throws ParseError when truncated. */
  end(): void {
    if (this.#failed) throw this.#failed;
    if (this.#pendingLen > 0 || !this.#headerDone) {
      const what = this.#headerDone ? 'block' : 'header';
      this.#failed = new ParseError(`truncated ${what}: the stream ends after ${this.#pendingLen} more bytes`, { offset: this.#offset });
      throw this.#failed;
    }
  }

  #drain(out: NativeSeries[]): void {
    for (;;) {
      if (!this.#headerDone) {
        if (this.#pendingLen < HEADER_BYTES) return;
        checkHeader(this.#take(HEADER_BYTES), this.#offset - HEADER_BYTES);
        this.#headerDone = true;
        continue;
      }
      if (this.#pendingLen < FRAME_BYTES) return;
      const head = this.#peek(FRAME_BYTES);
      const len = head.readUInt32LE(0);
      if (len === 0 || len > this.#maxBlock) {
        throw new ParseError(`block length ${len} is outside 1..${this.#maxBlock}`, { offset: this.#offset });
      }
      if (this.#pendingLen < FRAME_BYTES + len) return;
      const crc = head.readUInt32LE(4);
      const blockOffset = this.#offset;
      const frame = this.#take(FRAME_BYTES + len);
      const payload = frame.subarray(FRAME_BYTES);
      if (zlib.crc32(payload) !== crc) throw new ParseError('block checksum mismatch', { offset: blockOffset });
      out.push(decodePayload(payload, blockOffset + FRAME_BYTES));
    }
  }

  #peek(n: number): Buffer {
    if (this.#pending[0]!.length < n) this.#pending = [Buffer.concat(this.#pending, this.#pendingLen)];
    return this.#pending[0]!.subarray(0, n);
  }

  #take(n: number): Buffer {
    if (this.#pending[0]!.length < n) this.#pending = [Buffer.concat(this.#pending, this.#pendingLen)];
    const first = this.#pending[0]!;
    const b = first.subarray(0, n);
    if (first.length === n) this.#pending.shift();
    else this.#pending[0] = first.subarray(n);
    this.#pendingLen -= n;
    this.#offset += n;
    return b;
  }
}

function checkHeader(h: Buffer, offset: number): void {
  if (!h.subarray(0, 4).equals(MAGIC)) throw new ParseError('not a native stream: bad magic (want "STNB")', { offset });
  if (h[4] !== VERSION) throw new ParseError(`unsupported native format version ${h[4]} (want ${VERSION})`, { offset: offset + 4 });
  if (h[5] !== 0 || h[6] !== 0 || h[7] !== 0) throw new ParseError('reserved header bytes must be zero', { offset: offset + 5 });
}

function decodePayload(payload: Buffer, base: number): NativeSeries {
  const r = new ByteReader(payload, 'block', 0, payload.length, (reason, at) => new ParseError(reason, { offset: base + at }));
  const kind = r.readU8();
  if (kind !== KIND_SERIES) throw r.error(`unknown block kind ${kind}`, 0);
  const labels = readLabels(r);
  const nAt = r.pos;
  const n = r.readUvarint();
  if (n < 1 || n > MAX_SAMPLES_PER_BLOCK) throw r.error(`sample count ${n} is outside 1..${MAX_SAMPLES_PER_BLOCK}`, nAt);
  if (n > r.end - r.pos) throw r.error(`sample count ${n} does not fit the ${r.end - r.pos} bytes left`, nAt);
  const timestamps = readTimestamps(r, n);
  const values = readValues(r, n);
  if (r.pos !== r.end) throw r.error(`${r.end - r.pos} unexpected bytes at the end of the block`);
  return { labels, timestamps, values };
}

function readLabels(r: ByteReader<Buffer>): Label[] {
  const at = r.pos;
  const count = r.readUvarint();
  if (count < 1 || count * 2 > r.end - r.pos) throw r.error(`label count ${count} does not fit the block`, at);
  const labels: Label[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const name = r.readBytes(r.readUvarint(), 'label name').toString('utf8');
    const value = r.readBytes(r.readUvarint(), 'label value').toString('utf8');
    labels[i] = { name, value };
  }
  try {
    const out = canonicalLabels(labels, 'reject');
    if (out.length === 0) throw r.error('series has only empty labels', at);
    return out;
  } catch (e) {
    if (isLineFailure(e)) throw r.error(e.reason, at);
    throw e;
  }
}

function readTimestamps(r: ByteReader<Buffer>, n: number): Float64Array {
  const out = new Float64Array(n);
  const enc = r.readU8();
  if (enc === TS_RAW) {
    const b = r.readBytes(n * 8, 'timestamps');
    for (let i = 0; i < n; i++) {
      const t = Number(b.readBigInt64LE(i * 8));
      if (!Number.isSafeInteger(t)) throw r.error(`timestamp ${b.readBigInt64LE(i * 8)} is out of range`, r.pos - (n - i) * 8);
      out[i] = t;
    }
    return out;
  }
  if (enc !== TS_DOD) throw r.error(`unknown timestamp encoding ${enc}`, r.pos - 1);
  let t = r.readVarint();
  out[0] = t;
  let delta = 0;
  const buf = r.buf;
  for (let i = 1; i < n; i++) {
    const at = r.pos;
    // One-byte varints (regular intervals: a delta-of-delta of 0) are read inline: the hot path of
    // a search streamed from a storage node.
    const x = at < r.end ? buf[at]! : 0x80;
    let d: number;
    if (x < 0x80) {
      r.pos = at + 1;
      d = x & 1 ? -(x + 1) / 2 : x / 2;
    } else {
      d = r.readVarint();
    }
    delta = i === 1 ? d : delta + d;
    t += delta;
    if (!Number.isSafeInteger(t) || !Number.isSafeInteger(delta)) throw r.error('timestamp out of range', at);
    out[i] = t;
  }
  return out;
}

function readValues(r: ByteReader<Buffer>, n: number): Float64Array {
  const out = new Float64Array(n);
  const enc = r.readU8();
  if (enc === VAL_RAW) {
    const b = r.readBytes(n * 8, 'values');
    for (let i = 0; i < n; i++) out[i] = b.readDoubleLE(i * 8);
    return out;
  }
  if (enc === VAL_INT) {
    let v = r.readVarint();
    out[0] = v;
    const buf = r.buf;
    for (let i = 1; i < n; i++) {
      const at = r.pos;
      const x = at < r.end ? buf[at]! : 0x80;
      if (x < 0x80) {
        r.pos = at + 1;
        v += x & 1 ? -(x + 1) / 2 : x / 2;
      } else {
        v += r.readVarint();
      }
      if (!Number.isSafeInteger(v)) throw r.error('integer value out of range', at);
      out[i] = v;
    }
    return out;
  }
  if (enc !== VAL_XOR) throw r.error(`unknown value encoding ${enc}`, r.pos - 1);
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  bytes.set(r.readBytes(8, 'first value'));
  out[0] = view.getFloat64(0);
  // Read straight from the buffer (no view per value): the hot path of a streamed search.
  const buf = r.buf;
  const end = r.end;
  let pos = r.pos;
  for (let i = 1; i < n; i++) {
    if (pos >= end) throw r.error('unexpected end of block', pos);
    const at = pos;
    const c = buf[pos++]!;
    if (c !== 0x80) {
      const lead = c >> 4;
      const trail = c & 0x0f;
      if (lead + trail > 7) throw r.error(`bad value control byte 0x${c.toString(16)}`, at);
      const m = 8 - lead - trail;
      if (m > end - pos) throw r.error(`value of ${m} bytes runs past the end of the block`, pos);
      for (let k = 0; k < m; k++) bytes[lead + k]! ^= buf[pos + k]!;
      pos += m;
    }
    out[i] = view.getFloat64(0);
  }
  r.pos = pos;
  return out;
}

/** parse decodes a whole native stream held in memory. Throws ParseError. */
export function parse(body: Uint8Array, opts: NativeDecoderOptions = {}): NativeSeries[] {
  const d = new NativeDecoder(opts);
  const out = d.push(body);
  d.end();
  return out;
}

/** seriesRows turns one decoded series into rows sharing its labels. */
export function seriesRows(s: NativeSeries): Row[] {
  const rows: Row[] = new Array(s.timestamps.length);
  for (let i = 0; i < rows.length; i++) rows[i] = { labels: s.labels, timestamp: s.timestamps[i]!, value: s.values[i]! };
  return rows;
}
