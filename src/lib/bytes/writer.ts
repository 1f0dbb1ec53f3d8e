// Varints here carry any safe integer, and writeUvarint any integer up to 2^64 that a double holds
// exactly. Bit operators are used only below 2^31, arithmetic above it.

const TWO_31 = 2 ** 31;
/** Below this, zigzag(v) is exact in a double; above it writeVarint takes a BigInt path. */
const ZIGZAG_FAST = 2 ** 52;

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

  /** writeUvarint appends an unsigned integer 0 <= v < 2^64 (exact in a double) in LEB128. */
  writeUvarint(v: number): void {
    this.ensure(10);
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

  /** writeVarint appends a signed safe integer zigzag-encoded (ByteReader.readVarint reads it back). */
  writeVarint(v: number): void {
    if (v > -ZIGZAG_FAST && v < ZIGZAG_FAST) return this.writeUvarint(v < 0 ? -2 * v - 1 : 2 * v);
    const b = BigInt(v);
    this.#writeBig(BigInt.asUintN(64, (b << 1n) ^ (b >> 63n)));
  }

  /** writeInt64 appends a signed safe integer as protobuf int64: two's complement, negatives take 10 bytes. */
  writeInt64(v: number): void {
    if (v >= 0) return this.writeUvarint(v);
    this.#writeBig(BigInt.asUintN(64, BigInt(v)));
  }

  #writeBig(u: bigint): void {
    this.ensure(10);
    while (u >= 128n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
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

  /** writeF64 appends a little-endian float64, keeping its bits (NaN payloads too). */
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
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** copy returns a fresh copy of what was written. */
  copy(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}
