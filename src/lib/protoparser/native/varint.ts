// Varints for the native format (FORMAT.md): uvarint (LEB128) and svarint (zigzag). Numbers stay on
// the fast double path while exact (< 2^49 while reading, < 2^52 while zigzagging); bigger ones
// take a BigInt path, so every safe integer round-trips.

import { ParseError } from '../common/parse-error.ts';

const FAST_LIMIT = 2 ** 52;

/** BlockWriter is a growable output buffer. */
export class BlockWriter {
  buf = Buffer.allocUnsafe(1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  uvarint(v: number): void {
    this.ensure(10);
    while (v >= 128) {
      this.buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }

  svarint(v: number): void {
    if (v > -FAST_LIMIT && v < FAST_LIMIT) return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
    const b = BigInt(v);
    let z = BigInt.asUintN(64, (b << 1n) ^ (b >> 63n));
    this.ensure(10);
    while (z >= 128n) {
      this.buf[this.pos++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    this.buf[this.pos++] = Number(z);
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** BlockReader reads from buf[pos, end); errors report `base + pos` as the stream offset. */
export class BlockReader {
  readonly buf: Buffer;
  readonly base: number;
  pos: number;
  readonly end: number;

  constructor(buf: Buffer, pos: number, end: number, base: number) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.base = base;
  }

  error(reason: string, at = this.pos): ParseError {
    return new ParseError(reason, { offset: this.base + at });
  }

  u8(): number {
    if (this.pos >= this.end) throw this.error('unexpected end of block');
    return this.buf[this.pos++]!;
  }

  uvarint(): number {
    let v = 0;
    let mul = 1;
    const start = this.pos;
    for (let i = 0; i < 7; i++) {
      const x = this.u8();
      v += (x & 0x7f) * mul;
      if (x < 0x80) return v;
      mul *= 128;
    }
    this.pos = start;
    const z = this.bigUvarint();
    if (z > BigInt(Number.MAX_SAFE_INTEGER)) throw this.error('varint out of range', start);
    return Number(z);
  }

  svarint(): number {
    const start = this.pos;
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      const x = this.u8();
      v += (x & 0x7f) * mul;
      if (x < 0x80) return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
      mul *= 128;
    }
    this.pos = start;
    const z = this.bigUvarint();
    const n = Number((z >> 1n) ^ -(z & 1n));
    if (!Number.isSafeInteger(n)) throw this.error('integer out of range', start);
    return n;
  }

  private bigUvarint(): bigint {
    const start = this.pos;
    let v = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const x = this.u8();
      v |= BigInt(x & 0x7f) << shift;
      if (x < 0x80) return BigInt.asUintN(64, v);
      shift += 7n;
    }
    throw this.error('varint longer than 10 bytes', start);
  }

  /** take returns the next n bytes, checking they exist. */
  take(n: number, what: string): Buffer {
    if (n > this.end - this.pos) throw this.error(`${what} of ${n} bytes runs past the end of the block`);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}
