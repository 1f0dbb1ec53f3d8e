import { CorruptDataError } from '../errors.ts';

const EMPTY = new Uint8Array(0);

/**
 * StreamCursor reads the integers of an encoded stream (FORMAT.md "Integers in streams") from
 * bytes[pos..end). Decoders keep one instance each and reset it per stream, so decoding a block
 * allocates nothing; its hot loops read single-byte varints inline and call uvarint() for the
 * rest. Every read checks bounds and fails with CorruptDataError naming `what`.
 */
export class StreamCursor {
  bytes: Uint8Array = EMPTY;
  pos = 0;
  end = 0;
  what = '';

  reset(bytes: Uint8Array, what: string): void {
    this.bytes = bytes;
    this.pos = 0;
    this.end = bytes.length;
    this.what = what;
  }

  /** release drops the reference to the last stream (it may be a large shared buffer). */
  release(): void {
    this.bytes = EMPTY;
    this.end = 0;
  }

  fail(reason: string): never {
    throw new CorruptDataError(`cannot decode ${this.what} at byte ${this.pos}: ${reason}`);
  }

  /** uvarint reads an unsigned LEB128 integer of up to 8 bytes (at most 2^53). */
  uvarint(): number {
    const b = this.bytes;
    let p = this.pos;
    if (p < this.end && b[p]! < 0x80) {
      this.pos = p + 1;
      return b[p]!;
    }
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

  /**
   * uvarintBefore reads the unsigned varint that ends just before pos and moves pos to its first
   * byte: LEB128 reads backwards too, since only the last byte of each varint has its high bit
   * clear. Fails rather than step below limit.
   */
  uvarintBefore(limit: number): number {
    const b = this.bytes;
    const end = this.pos;
    if (end <= limit || b[end - 1]! >= 0x80) this.fail('no varint ends here');
    let start = end - 1;
    while (start > limit && b[start - 1]! >= 0x80) {
      if (end - start >= 8) this.fail('varint longer than 8 bytes');
      start--;
    }
    this.pos = start;
    const v = this.uvarint();
    this.pos = start;
    return v;
  }

  /** varintBefore is uvarintBefore for a zigzag-encoded signed integer. */
  varintBefore(limit: number): number {
    return unzigzag(this.uvarintBefore(limit));
  }

  /** varint reads a zigzag-encoded signed integer. */
  varint(): number {
    return unzigzag(this.uvarint());
  }

  /** u32 reads a little-endian uint32. */
  u32(): number {
    const p = this.pos;
    if (p + 4 > this.end) this.fail(`needs 4 more bytes, ${this.end - p} left`);
    const b = this.bytes;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  /** done fails unless the stream was read to its end. */
  done(): void {
    if (this.pos !== this.end) this.fail(`${this.end - this.pos} trailing bytes`);
  }
}

/** unzigzag maps 0, 1, 2, 3 … back to 0, −1, 1, −2 …; exact for every z up to 2^53. */
export function unzigzag(z: number): number {
  return z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 1 ? -(z + 1) / 2 : z / 2;
}
