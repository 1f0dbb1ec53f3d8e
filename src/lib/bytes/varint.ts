// Lengths and zigzag mapping of LEB128 varints, shared by ByteWriter, ByteReader and the encoders
// that size their output before writing it.

/** uvarintLen returns how many bytes ByteWriter.writeUvarint uses for v (0 <= v < 2^64). */
export function uvarintLen(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** varintLen returns how many bytes ByteWriter.writeVarint uses for v (a safe integer). */
export function varintLen(v: number): number {
  return uvarintLen(zigzag(v));
}

/** int64Len returns how many bytes ByteWriter.writeInt64 uses for v (negative ones take 10). */
export function int64Len(v: number): number {
  return v < 0 ? 10 : uvarintLen(v);
}

/** zigzag maps 0, −1, 1, −2 … to 0, 1, 2, 3 …; exact while the result stays below 2^53. */
export function zigzag(v: number): number {
  return v < 0 ? -2 * v - 1 : 2 * v;
}

/** unzigzag maps 0, 1, 2, 3 … back to 0, −1, 1, −2 …; exact for every z up to 2^53. */
export function unzigzag(z: number): number {
  return z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 1 ? -(z + 1) / 2 : z / 2;
}
