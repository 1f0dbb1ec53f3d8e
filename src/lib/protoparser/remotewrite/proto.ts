// A minimal protobuf wire-format reader and writer, enough for Prometheus' WriteRequest.
//
// Why hand-written: remote write is a hot ingestion path and the message is tiny (four message
// types, six fields). A generated decoder builds an object tree (WriteRequest → TimeSeries →
// Label/Sample objects) that we would immediately copy into rows; reading the wire format directly
// lets us build rows in one pass, decode label strings once, and take the raw label bytes as the
// row's rawKey for free. The reader is defensive: every length is checked against the bytes left,
// so truncated input or a huge length prefix is a ParseError, never an out-of-bounds read or a
// giant allocation.

import { ByteReader, ByteWriter, type DecodeErrorFactory, int64Len, uvarintLen } from '../../bytes/index.ts';
import { ParseError } from '../common/parse-error.ts';

/** Wire types of the protobuf encoding. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

const protoError: DecodeErrorFactory = (reason, offset) => new ParseError(reason, { offset });

/**
 * ProtoReader reads protobuf fields from buf[pos, end) with the shared ByteReader (its varint
 * loops are lib/bytes'); this adds the protobuf wire types. Not safe for concurrent use.
 */
export class ProtoReader extends ByteReader<Buffer> {
  constructor(buf: Uint8Array, pos = 0, end = buf.length) {
    super(Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), 'protobuf message', pos, end, protoError);
  }

  /** uint32 reads a varint that must fit 32 bits (tags and lengths). */
  uint32(): number {
    return this.readUvarint32();
  }

  /**
   * int64 reads a varint as a signed 64-bit integer (two's complement, as protobuf int64) and
   * returns it as a JS number; values outside the safe integer range are rejected.
   */
  int64(): number {
    return this.readInt64();
  }

  /** double reads a little-endian float64 (bit pattern preserved, including NaN payloads). */
  double(): number {
    if (this.end - this.pos < 8) throw this.truncated('fixed64');
    return this.readF64();
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
export const uvarintSize = uvarintLen;

/** int64Size returns how many bytes int64(v) writes. */
export const int64Size = int64Len;

/** ProtoWriter appends protobuf fields to a growing buffer (a ByteWriter underneath). */
export class ProtoWriter {
  readonly #w = new ByteWriter();

  get length(): number {
    return this.#w.pos;
  }

  /** uvarint writes a non-negative integer (up to 2^64-1 as long as it is exact in a double). */
  uvarint(v: number): void {
    this.#w.writeUvarint(v);
  }

  /** int64 writes a signed safe integer as protobuf int64 (negative values take 10 bytes). */
  int64(v: number): void {
    this.#w.writeInt64(v);
  }

  tag(field: number, wireType: number): void {
    this.#w.writeUvarint(field * 8 + wireType);
  }

  double(v: number): void {
    this.#w.writeF64(v);
  }

  bytes(b: Uint8Array): void {
    this.#w.writeUvarint(b.length);
    this.#w.writeBytes(b);
  }

  string(s: string): void {
    this.bytes(Buffer.from(s, 'utf8'));
  }

  /** raw appends bytes without a length prefix. */
  raw(b: Uint8Array): void {
    this.#w.writeBytes(b);
  }

  /** finish returns the bytes written so far (a view; do not write after calling it). */
  finish(): Buffer {
    return this.#w.bytes();
  }
}
