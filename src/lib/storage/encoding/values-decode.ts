import { ByteReader, CorruptDataError, unzigzag } from '../../bytes/index.ts';
import { pow10 } from './decimal.ts';
import { ENC_ZSTD } from './timestamps.ts';
import { V_CONST, V_DECIMAL_DELTA, V_DECIMAL_DELTA2, V_DECIMAL_DELTA2_TAIL, V_DECIMAL_DELTA_TAIL, V_FLOAT_XOR } from './values.ts';
import { decompressTransient } from './zstd.ts';

// Decoding runs for every block a search touches, so it allocates nothing per block and its
// loops read short varints inline (the layouts are in values.ts and FORMAT.md).

const cursor = new ByteReader<Uint8Array>(new Uint8Array(0), '');

/** maxValueStreamBytes bounds the uncompressed value stream of n values (a damaged frame cannot declare more). */
export function maxValueStreamBytes(n: number): number {
  return n * 17 + 64;
}

function open(enc: number, data: Uint8Array, n: number, out: Float64Array, off: number, what: string): ByteReader {
  if (n < 1 || off + n > out.length) throw new CorruptDataError(`cannot decode ${what}: bad sample count ${n}`);
  if (enc & ENC_ZSTD) data = decompressTransient(data, maxValueStreamBytes(n), what);
  cursor.reset(data, what);
  return cursor;
}

/**
 * decodeValues writes n values into out[off..off+n) from a stream made by ValueEncoder.encode.
 * Returns whether a value written may be NaN (a staleness marker included): false when the
 * encoding shows that none is, at no cost per value (a decimal stream's values are scaled
 * integers, only its exceptions carry raw bits; a constant has one value); an XOR stream may hold
 * any bits. Throws CorruptDataError naming `what` on malformed input.
 */
export function decodeValues(enc: number, data: Uint8Array, n: number, out: Float64Array, off: number, what: string): boolean {
  const c = open(enc, data, n, out, off, what);
  const kind = enc & ~ENC_ZSTD;
  let nan = true;
  if (kind === V_CONST) {
    nan = fillConst(c, n, 0, out, off);
  } else if (kind === V_DECIMAL_DELTA || kind === V_DECIMAL_DELTA2 || kind === V_DECIMAL_DELTA_TAIL || kind === V_DECIMAL_DELTA2_TAIL) {
    nan = decodeDecimalStream(c, kind, n, out, off);
  } else if (kind === V_FLOAT_XOR) {
    decodeXor(c, n, out, off);
  } else {
    c.fail(`unknown value encoding ${enc}`);
  }
  c.done();
  c.release();
  return nan;
}

/**
 * decodeValuesTail writes the values of indexes lo..n−1 of a block into out[off+lo..off+n)
 * (it may write the others too). Decimal streams with a tail are decoded backwards from their
 * last mantissa, and XOR streams backwards from their last value (the XOR of the whole stream),
 * so the cost of the decoding itself follows n − lo; a constant fills lo..n−1 only; other
 * streams are decoded whole. Returns whether a value written may be NaN, as decodeValues does.
 */
export function decodeValuesTail(enc: number, data: Uint8Array, n: number, lo: number, out: Float64Array, off: number, what: string): boolean {
  const kind = enc & ~ENC_ZSTD;
  const tail = kind === V_DECIMAL_DELTA_TAIL || kind === V_DECIMAL_DELTA2_TAIL || kind === V_FLOAT_XOR || kind === V_CONST;
  if (lo <= 0 || !tail) return decodeValues(enc, data, n, out, off, what);
  if (lo >= n) throw new CorruptDataError(`cannot decode ${what}: index ${lo} past ${n} values`);
  const c = open(enc, data, n, out, off, what);
  if (kind === V_CONST || kind === V_FLOAT_XOR) {
    const nan = kind === V_CONST ? fillConst(c, n, lo, out, off) : (decodeXorTail(c, n, lo, out, off), true);
    c.done();
    c.release();
    return nan;
  }
  const { exp, excStart, excCount } = decimalHeader(c, n);
  const mantStart = c.pos;
  c.pos = c.end;
  const delta2 = kind === V_DECIMAL_DELTA2_TAIL;
  let d = delta2 ? c.readVarintBefore(mantStart) : 0;
  let m = c.readVarintBefore(mantStart);
  out[off + n - 1] = m;
  for (let i = n - 1; i > lo; i--) {
    // mᵢ₋₁ = mᵢ − dᵢ; with delta-of-deltas dᵢ₋₁ = dᵢ − (dᵢ − dᵢ₋₁), held in the stream for i >= 2.
    if (!delta2) d = c.readVarintBefore(mantStart);
    m -= d;
    out[off + i - 1] = m;
    if (delta2 && i - 1 > lo) d -= c.readVarintBefore(mantStart);
  }
  scale(out, off + lo, n - lo, exp);
  const nan = excCount > 0 && applyExceptions(c, excStart, excCount, out, off, n);
  c.release();
  return nan;
}

const header = { exp: 0, excStart: 0, excCount: 0 };

// decimalHeader reads the exponent and checks the exception list (applied after the mantissas,
// whose slots they take), leaving the cursor at the first mantissa.
function decimalHeader(c: ByteReader, n: number): typeof header {
  const exp = c.readVarint();
  if (exp < -22 || exp > 22) c.fail(`decimal exponent ${exp} out of range`);
  const excCount = c.readUvarint();
  if (excCount > n) c.fail(`${excCount} exceptions for ${n} values`);
  const excStart = c.pos;
  let pos = 0;
  for (let i = 0; i < excCount; i++) {
    const step = c.readUvarint();
    pos += step;
    if (pos >= n || (i > 0 && step === 0)) c.fail(`bad exception position ${pos}`);
    if (c.pos + 8 > c.end) c.fail(`needs 8 more bytes, ${c.end - c.pos} left`);
    c.pos += 8;
  }
  header.exp = exp;
  header.excStart = excStart;
  header.excCount = excCount;
  return header;
}

// decodeDecimalStream returns whether an exception wrote a NaN (the scaled mantissas never are).
function decodeDecimalStream(c: ByteReader, kind: number, n: number, out: Float64Array, off: number): boolean {
  const { exp, excStart, excCount } = decimalHeader(c, n);
  const delta2 = kind === V_DECIMAL_DELTA2 || kind === V_DECIMAL_DELTA2_TAIL;
  let lastDelta = 0;
  if (delta2) lastDelta = decodeDelta2(c, n, out, off);
  else decodeDelta(c, n, out, off);
  if (kind === V_DECIMAL_DELTA_TAIL || kind === V_DECIMAL_DELTA2_TAIL) {
    if (c.readVarint() !== out[off + n - 1]) c.fail('last mantissa does not match');
    if (delta2 && c.readVarint() !== lastDelta) c.fail('last delta does not match');
  }
  scale(out, off, n, exp);
  return excCount > 0 && applyExceptions(c, excStart, excCount, out, off, n);
}

// decodeDelta2 and decodeDelta keep their varint loop inline, twice: the one varint loop left
// outside lib/bytes. The same loop as one ByteReader method (decode and sums in one pass) cost
// 45% more CPU on block decode — bench/bytes-codec.ts storage-values-decode, min of 21 rounds,
// five interleaved runs: 16.0–16.9 ms against 10.3–11.7 ms inline (timestamps 14.0–14.7 against
// 5.7–6.2). That was measured before ByteReader's fields got initializers (see reader.ts), which
// removed a 14% cost of its own; worth measuring again before merging the two loops.
// decodeDelta2 writes the mantissas of a delta-of-delta stream (m₀, d₁, then second
// differences) and returns the last delta.
function decodeDelta2(c: ByteReader, n: number, out: Float64Array, off: number): number {
  let m = c.readVarint();
  out[off] = m;
  if (n === 1) return 0;
  let d = c.readVarint();
  m += d;
  out[off + 1] = m;
  const b = c.buf;
  const end = c.end;
  let p = c.pos;
  for (let i = off + 2, last = off + n; i < last; i++) {
    let z: number;
    if (p + 2 < end) {
      // Inline the 1-, 2- and 3-byte forms (zigzag values below 2^21), the bulk of every stream.
      z = b[p]!;
      if (z < 0x80) p++;
      else if (b[p + 1]! < 0x80) {
        z = (z & 0x7f) | (b[p + 1]! << 7);
        p += 2;
      } else if (b[p + 2]! < 0x80) {
        z = (z & 0x7f) | ((b[p + 1]! & 0x7f) << 7) | (b[p + 2]! << 14);
        p += 3;
      } else {
        c.pos = p;
        z = c.readUvarint();
        p = c.pos;
      }
    } else {
      c.pos = p;
      z = c.readUvarint();
      p = c.pos;
    }
    d += unzigzag(z);
    m += d;
    out[i] = m;
  }
  c.pos = p;
  return d;
}

// decodeDelta writes the mantissas of a delta stream: m₀, then first differences.
function decodeDelta(c: ByteReader, n: number, out: Float64Array, off: number): void {
  let m = c.readVarint();
  out[off] = m;
  const b = c.buf;
  const end = c.end;
  let p = c.pos;
  for (let i = off + 1, last = off + n; i < last; i++) {
    let z: number;
    if (p + 2 < end) {
      // Inline the 1-, 2- and 3-byte forms (zigzag values below 2^21), the bulk of every stream.
      z = b[p]!;
      if (z < 0x80) p++;
      else if (b[p + 1]! < 0x80) {
        z = (z & 0x7f) | (b[p + 1]! << 7);
        p += 2;
      } else if (b[p + 2]! < 0x80) {
        z = (z & 0x7f) | ((b[p + 1]! & 0x7f) << 7) | (b[p + 2]! << 14);
        p += 3;
      } else {
        c.pos = p;
        z = c.readUvarint();
        p = c.pos;
      }
    } else {
      c.pos = p;
      z = c.readUvarint();
      p = c.pos;
    }
    m += unzigzag(z);
    out[i] = m;
  }
  c.pos = p;
}

// scale turns mantissas into values exactly as decimal.ts decodeDecimal does (m / 10^−e, m, m · 10^e).
function scale(out: Float64Array, off: number, n: number, exp: number): void {
  if (exp < 0) {
    const div = pow10(-exp);
    for (let i = off, last = off + n; i < last; i++) out[i] = out[i]! / div;
  } else if (exp > 0) {
    const mul = pow10(exp);
    for (let i = off, last = off + n; i < last; i++) out[i] = out[i]! * mul;
  }
}

// isNaNBits tells whether the float64 with these low and high 32 bits is a NaN: all exponent bits
// set and a fraction that is not zero.
function isNaNBits(lo: number, hi: number): boolean {
  return (hi & 0x7ff00000) === 0x7ff00000 && ((hi & 0xfffff) | lo) !== 0;
}

// applyExceptions copies the raw bits of the exceptions (read from excStart) over their slots;
// returns whether one of them is a NaN.
function applyExceptions(c: ByteReader, excStart: number, count: number, out: Float64Array, off: number, n: number): boolean {
  const end = c.pos;
  const u = new Uint32Array(out.buffer, out.byteOffset + off * 8, n * 2);
  c.pos = excStart;
  let pos = 0;
  let nan = false;
  for (let i = 0; i < count; i++) {
    pos += c.readUvarint();
    const lo = c.readU32();
    const hi = c.readU32();
    u[2 * pos] = lo;
    u[2 * pos + 1] = hi;
    if (isNaNBits(lo, hi)) nan = true;
  }
  c.pos = end;
  return nan;
}

// fillConst writes the stream's one value (its raw bits) into out[off+from..off+n); returns
// whether it is a NaN.
function fillConst(c: ByteReader, n: number, from: number, out: Float64Array, off: number): boolean {
  const lo = c.readU32();
  const hi = c.readU32();
  const u = new Uint32Array(out.buffer, out.byteOffset + off * 8, n * 2);
  for (let i = 2 * from; i < 2 * n; i += 2) {
    u[i] = lo;
    u[i + 1] = hi;
  }
  return isNaNBits(lo, hi);
}

// xorWord returns the low (or high) 32 bits of the i-th XOR word of a stream at s, gathered from
// its four byte planes.
function xorWord(src: Uint8Array, s: number, n: number, i: number, high: boolean): number {
  const b = high ? s + 4 * n + i : s + i;
  return (src[b]! | (src[b + n]! << 8) | (src[b + 2 * n]! << 16) | (src[b + 3 * n]! << 24)) >>> 0;
}

// foldPlanes XORs together the n bytes of each of the four byte planes from base (a 32-bit half
// of every XOR word) and returns them as one 32-bit word: the XOR of all n half-words.
function foldPlanes(src: Uint8Array, view: DataView, base: number, n: number): number {
  let w = 0;
  for (let k = 0; k < 4; k++) {
    let x = 0;
    const start = base + k * n;
    let i = start;
    const end = start + n;
    // Four bytes of the plane per step (one word read); their XOR folds to one byte below.
    for (const last4 = end - 3; i < last4; i += 4) x ^= view.getInt32(i, true);
    for (; i < end; i++) x ^= src[i]!;
    x ^= x >>> 16;
    x ^= x >>> 8;
    w |= (x & 0xff) << (8 * k);
  }
  return w >>> 0;
}

// decodeXorTail writes values lo..n−1 of an XOR stream: the last value's bits are the XOR of all
// n words (the first value XORs zero), and each earlier one is the next XOR the next word.
function decodeXorTail(c: ByteReader, n: number, lo: number, out: Float64Array, off: number): void {
  if (c.pos + n * 8 > c.end) c.fail(`needs ${n * 8} bytes, ${c.end - c.pos} left`);
  const src = c.buf;
  const s = c.pos;
  const u = new Uint32Array(out.buffer, out.byteOffset + off * 8, n * 2);
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  let plo = foldPlanes(src, view, s, n);
  let phi = foldPlanes(src, view, s + 4 * n, n);
  for (let i = n - 1; ; i--) {
    u[2 * i] = plo;
    u[2 * i + 1] = phi;
    if (i === lo) break;
    plo = (plo ^ xorWord(src, s, n, i, false)) >>> 0;
    phi = (phi ^ xorWord(src, s, n, i, true)) >>> 0;
  }
  c.pos = s + n * 8;
}

function decodeXor(c: ByteReader, n: number, out: Float64Array, off: number): void {
  if (c.pos + n * 8 > c.end) c.fail(`needs ${n * 8} bytes, ${c.end - c.pos} left`);
  const src = c.buf;
  const s = c.pos;
  const u = new Uint32Array(out.buffer, out.byteOffset + off * 8, n * 2);
  let plo = 0;
  let phi = 0;
  for (let i = 0; i < n; i++) {
    const xl = src[s + i]! | (src[s + n + i]! << 8) | (src[s + 2 * n + i]! << 16) | (src[s + 3 * n + i]! << 24);
    const xh = src[s + 4 * n + i]! | (src[s + 5 * n + i]! << 8) | (src[s + 6 * n + i]! << 16) | (src[s + 7 * n + i]! << 24);
    plo = (plo ^ xl) >>> 0;
    phi = (phi ^ xh) >>> 0;
    u[2 * i] = plo;
    u[2 * i + 1] = phi;
  }
  c.pos = s + n * 8;
}
