// A minimal protobuf wire-format reader and writer, enough for Prometheus' WriteRequest.
//
// Why hand-written: remote write is a hot ingestion path and the message is tiny (four message
// types, six fields). A generated decoder builds an object tree (WriteRequest → TimeSeries →
// Label/Sample objects) that we would immediately copy into rows; reading the wire format directly
// lets us build rows in one pass, decode label strings once, and take the raw label bytes as the
// row's rawKey for free. The reader is defensive: every length is checked against the bytes left,
// so truncated input or a huge length prefix is a ParseError, never an out-of-bounds read or a
// giant allocation.

import { ParseError } from '../common/parse-error.ts';

/** Wire types of the protobuf encoding. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** ProtoReader reads protobuf fields from buf[pos, end). Not safe for concurrent use. */
export class ProtoReader {
  readonly buf: Buffer;
  readonly view: DataView;
  pos: number;
  end: number;

  constructor(buf: Uint8Array, pos = 0, end = buf.length) {
    this.buf = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = pos;
    this.end = end;
  }

  /** uint32 reads a varint that must fit 32 bits (tags and lengths). */
  uint32(): number {
    const b = this.buf;
    let v = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) throw this.truncated('varint');
      const x = b[this.pos++]!;
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
      shift += 7;
    }
    throw new ParseError('varint does not fit 32 bits', { offset: this.pos });
  }

  /**
   * int64 reads a varint as a signed 64-bit integer (two's complement, as protobuf int64) and
   * returns it as a JS number; values outside the safe integer range are rejected.
   */
  int64(): number {
    const b = this.buf;
    const start = this.pos;
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.end) throw this.truncated('varint');
      const x = b[this.pos++]!;
      v += (x & 0x7f) * mul;
      if (x < 0x80) return v; // < 2^49: exact
      mul *= 128;
    }
    this.pos = start;
    return this.int64Slow();
  }

  private int64Slow(): number {
    const start = this.pos;
    let v = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.truncated('varint');
      const x = this.buf[this.pos++]!;
      v |= BigInt(x & 0x7f) << shift;
      if (x < 0x80) {
        const n = Number(BigInt.asIntN(64, v));
        if (!Number.isSafeInteger(n)) throw new ParseError(`int64 ${BigInt.asIntN(64, v)} is out of the supported range`, { offset: start });
        return n;
      }
      shift += 7n;
    }
    throw new ParseError('varint longer than 10 bytes', { offset: start });
  }

  /** double reads a little-endian float64 (bit pattern preserved, including NaN payloads). */
  double(): number {
    if (this.end - this.pos < 8) throw this.truncated('fixed64');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** len reads a length prefix and checks that many bytes remain; returns the end of the field. */
  len(): number {
    const n = this.uint32();
    if (n > this.end - this.pos) {
      throw new ParseError(`field length ${n} exceeds the ${this.end - this.pos} bytes left`, { offset: this.pos });
    }
    return this.pos + n;
  }

  /** string reads a length-delimited UTF-8 string. */
  string(): string {
    const end = this.len();
    const s = decodeUtf8(this.buf, this.pos, end);
    this.pos = end;
    return s;
  }

  /** skip skips one field of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        for (;;) {
          if (this.pos >= this.end) throw this.truncated('varint');
          if (this.buf[this.pos++]! < 0x80) return;
        }
      case WIRE_FIXED64:
        if (this.end - this.pos < 8) throw this.truncated('fixed64');
        this.pos += 8;
        return;
      case WIRE_LEN:
        this.pos = this.len();
        return;
      case WIRE_FIXED32:
        if (this.end - this.pos < 4) throw this.truncated('fixed32');
        this.pos += 4;
        return;
      default:
        throw new ParseError(`unsupported protobuf wire type ${wireType}`, { offset: this.pos });
    }
  }

  truncated(what: string): ParseError {
    return new ParseError(`truncated ${what}`, { offset: this.pos });
  }
}

// Short ASCII strings (label names and most values) are cheaper to build in JS than through the
// native UTF-8 decoder call.
function decodeUtf8(b: Buffer, start: number, end: number): string {
  if (end - start <= 24) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = b[i]!;
      if (c >= 0x80) return b.toString('utf8', start, end);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return b.toString('utf8', start, end);
}

/** uvarintSize returns how many bytes uvarint(v) writes. */
export function uvarintSize(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** int64Size returns how many bytes int64(v) writes. */
export function int64Size(v: number): number {
  return v < 0 ? 10 : uvarintSize(v);
}

/** ProtoWriter appends protobuf fields to a growing buffer. */
export class ProtoWriter {
  #buf = Buffer.allocUnsafe(256);
  #pos = 0;

  get length(): number {
    return this.#pos;
  }

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  /** uvarint writes a non-negative integer (up to 2^64-1 as long as it is exact in a double). */
  uvarint(v: number): void {
    this.#ensure(10);
    while (v >= 128) {
      this.#buf[this.#pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.#buf[this.#pos++] = v;
  }

  /** int64 writes a signed safe integer as protobuf int64 (negative values take 10 bytes). */
  int64(v: number): void {
    if (v >= 0) return this.uvarint(v);
    let u = BigInt.asUintN(64, BigInt(v));
    this.#ensure(10);
    while (u >= 128n) {
      this.#buf[this.#pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.#buf[this.#pos++] = Number(u);
  }

  tag(field: number, wireType: number): void {
    this.uvarint(field * 8 + wireType);
  }

  double(v: number): void {
    this.#ensure(8);
    this.#buf.writeDoubleLE(v, this.#pos);
    this.#pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.#ensure(b.length);
    this.#buf.set(b, this.#pos);
    this.#pos += b.length;
  }

  string(s: string): void {
    this.bytes(Buffer.from(s, 'utf8'));
  }

  /** raw appends bytes without a length prefix. */
  raw(b: Uint8Array): void {
    this.#ensure(b.length);
    this.#buf.set(b, this.#pos);
    this.#pos += b.length;
  }

  /** finish returns the bytes written so far (a view; do not write after calling it). */
  finish(): Buffer {
    return this.#buf.subarray(0, this.#pos);
  }

}
