import { CorruptDataError } from '../errors.ts';

// Variable-length integers here carry any safe integer (|v| <= 2^53), not only 32-bit ones:
// timestamps and decimal mantissas need up to 53 bits. Bit operators are used only below 2^31,
// arithmetic above it.

const TWO_31 = 2 ** 31;

/**
 * ByteWriter appends little-endian binary data to a growing buffer. Not safe for concurrent use
 * (JS is single-threaded; do not interleave two encoders on one writer).
 */
export class ByteWriter {
  buf: Buffer;
  pos = 0;
  #view: DataView;

  constructor(initialCapacity = 256) {
    this.buf = Buffer.alloc(Math.max(16, initialCapacity));
    this.#view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** reset forgets the content but keeps the memory. */
  reset(): void {
    this.pos = 0;
  }

  /** ensure makes room for n more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.alloc(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.#view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  /** writeUvarint appends an unsigned integer 0 <= v <= 2^53 in LEB128. */
  writeUvarint(v: number): void {
    this.ensure(8);
    const b = this.buf;
    let p = this.pos;
    while (v >= TWO_31) {
      b[p++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    b[p++] = v;
    this.pos = p;
  }

  /** writeVarint appends a signed integer |v| <= 2^52 zigzag-encoded. */
  writeVarint(v: number): void {
    this.writeUvarint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  writeU8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  writeU32(v: number): void {
    this.ensure(4);
    this.#view.setUint32(this.pos, v, true);
    this.pos += 4;
  }

  writeF64(v: number): void {
    this.ensure(8);
    this.#view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** writeLatin1 appends a binary string (one byte per char, all chars < 256). */
  writeLatin1(s: string): void {
    this.ensure(s.length);
    this.pos += this.buf.write(s, this.pos, 'latin1');
  }

  writeBytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }

  /** bytes returns a view of what was written (valid until the next write or reset). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** copy returns a fresh copy of what was written. */
  copy(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/** uvarintLen returns how many bytes writeUvarint uses for v. */
export function uvarintLen(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** varintLen returns how many bytes writeVarint uses for v. */
export function varintLen(v: number): number {
  return uvarintLen(v < 0 ? -2 * v - 1 : 2 * v);
}

/**
 * ByteReader decodes what ByteWriter wrote. Every read checks bounds and throws
 * CorruptDataError naming `what` when the input is short or malformed.
 */
export class ByteReader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;
  readonly what: string;
  #view: DataView;

  constructor(buf: Uint8Array, what: string, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.what = what;
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  remaining(): number {
    return this.end - this.pos;
  }

  fail(reason: string): never {
    throw new CorruptDataError(`cannot decode ${this.what} at byte ${this.pos}: ${reason}`);
  }

  need(n: number): void {
    if (this.pos + n > this.end) this.fail(`needs ${n} more bytes, ${this.end - this.pos} left`);
  }

  readUvarint(): number {
    const b = this.buf;
    let p = this.pos;
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      if (p >= this.end) this.fail('truncated varint');
      const c = b[p++]!;
      v += (c & 0x7f) * mul;
      if (c < 0x80) {
        this.pos = p;
        if (v > 2 ** 53) this.fail('varint above 2^53');
        return v;
      }
      mul *= 128;
    }
    this.pos = p;
    return this.fail('varint longer than 8 bytes');
  }

  readVarint(): number {
    const z = this.readUvarint();
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
  }

  readU8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  readU32(): number {
    this.need(4);
    const v = this.#view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  readF64(): number {
    this.need(8);
    const v = this.#view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  readBytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}
