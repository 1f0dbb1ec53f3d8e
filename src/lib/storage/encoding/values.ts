import { type ByteWriter, varintLen } from '../../bytes/index.ts';
import { decimalExponent, NOT_DECIMAL, toMantissa } from './decimal.ts';
import { ENC_ZSTD } from './timestamps.ts';
import { MIN_COMPRESS_BYTES, blockZstdLevel, maybeCompressTransient } from './zstd.ts';

// Value encodings (the byte is stored in the block header; ENC_ZSTD is or-ed in when compressed;
// values-decode.ts reads them):
//   V_CONST          8 raw bytes: every value of the block has these exact bits.
//   V_DECIMAL_DELTA  exponent, exceptions, first mantissa, then zigzag deltas of mantissas.
//   V_DECIMAL_DELTA2 exponent, exceptions, first mantissa, first delta, then delta-of-deltas
//                    (counters growing at a steady rate give near-zero second differences).
//   V_FLOAT_XOR      each value's bits XOR the previous one's, the 8 byte planes transposed so
//                    zstd sees long runs; used when too many values are not short decimals.
//   V_DECIMAL_DELTA_TAIL, V_DECIMAL_DELTA2_TAIL  the two decimal forms followed by the last
//                    mantissa (and, for delta-of-delta, the last delta): a reader that wants only
//                    the newest values decodes backwards from there. The writer uses only these.
// Exceptions are values that are no decimal (NaN, staleness markers, ±Inf, -0, long fractions):
// their raw bits are listed by position and their mantissa slot repeats the previous mantissa,
// so a staleness marker at the end of a series does not spoil the block's compression.

export const V_CONST = 0;
export const V_DECIMAL_DELTA = 1;
export const V_DECIMAL_DELTA2 = 2;
export const V_FLOAT_XOR = 3;
export const V_DECIMAL_DELTA_TAIL = 4;
export const V_DECIMAL_DELTA2_TAIL = 5;

const MAX_EXCEPTION_SHARE = 0.25;

/** ValueEncoder holds scratch space reused across blocks; one per encoding loop, not shared. */
export class ValueEncoder {
  #mantissas = new Float64Array(256);
  #exceptions: number[] = [];
  readonly zstdLevel: number;

  /** zstdLevel 0 disables compression; blocks of few rows stay raw (blockZstdLevel). */
  constructor(zstdLevel: number) {
    this.zstdLevel = zstdLevel;
  }

  /** encode appends vals[start..end) (at least one) to w and returns the encoding byte. */
  encode(vals: Float64Array, start: number, end: number, w: ByteWriter): number {
    const begin = w.pos;
    if (allSameBits(vals, start, end)) {
      writeRawBits(vals, start, w);
      return V_CONST;
    }
    const level = blockZstdLevel(this.zstdLevel, end - start);
    const kind = this.#encodeDecimal(vals, start, end, w, level > 0) ?? encodeXor(vals, start, end, w);
    if (level > 0) {
      const packed = maybeCompressTransient(w.buf.subarray(begin, w.pos), level);
      if (packed) {
        w.pos = begin;
        w.writeBytes(packed);
        return kind | ENC_ZSTD;
      }
    }
    return kind;
  }

  #encodeDecimal(vals: Float64Array, start: number, end: number, w: ByteWriter, zstd: boolean): number | undefined {
    const n = end - start;
    if (this.#mantissas.length < n) this.#mantissas = new Float64Array(n * 2);
    const ms = this.#mantissas;
    const exc = this.#exceptions;
    // One pass finds the block's exponent (the smallest decimalExponent of its values) and the
    // mantissas at it: a value that converts at the exponent found so far (<= 0) has its own
    // exponent at or above it (decimalExponent tries the same expressions from 10^-1 down), so
    // only values that do not convert pay for decimalExponent; a smaller exponent restarts the
    // pass. Blocks settle on their exponent within the first few values, so this is one
    // toMantissa per value where two loops cost a decimalExponent and a toMantissa each.
    let exp = NOT_DECIMAL;
    let prev = 0;
    exc.length = 0;
    for (let i = 0; i < n; i++) {
      const v = vals[start + i]!;
      let m = exp <= 0 ? toMantissa(v, exp) : NaN;
      if (m !== m) {
        const e = decimalExponent(v);
        if (e < exp) {
          exp = e;
          exc.length = 0;
          prev = 0;
          i = -1;
          continue;
        }
        // Above 0 the exponent is no bound (decimalExponent gives 0 to every integer up to
        // MAX_MANTISSA), so there every value is checked against it.
        if (exp > 0 && exp !== NOT_DECIMAL) m = toMantissa(v, exp);
      }
      if (m === m) {
        prev = m;
      } else {
        exc.push(i);
      }
      ms[i] = prev;
    }
    if (exp === NOT_DECIMAL || exc.length > n * MAX_EXCEPTION_SHARE) return undefined;
    // Leading exceptions had no previous mantissa: borrow the first real one to keep deltas small.
    let lead = 0;
    while (lead < exc.length && exc[lead] === lead) lead++;
    for (let i = 0; i < lead; i++) ms[i] = ms[lead]!;
    const delta2 = n >= 3 && useDelta2(ms, n, zstd);
    w.writeVarint(exp);
    w.writeUvarint(exc.length);
    let last = 0;
    for (const i of exc) {
      w.writeUvarint(i - last);
      writeRawBits(vals, start + i, w);
      last = i;
    }
    w.writeVarint(ms[0]!);
    if (delta2) {
      let d = ms[1]! - ms[0]!;
      w.writeVarint(d);
      for (let i = 2; i < n; i++) {
        const di = ms[i]! - ms[i - 1]!;
        w.writeVarint(di - d);
        d = di;
      }
      w.writeVarint(ms[n - 1]!);
      w.writeVarint(d);
      return V_DECIMAL_DELTA2_TAIL;
    }
    for (let i = 1; i < n; i++) w.writeVarint(ms[i]! - ms[i - 1]!);
    w.writeVarint(ms[n - 1]!);
    return V_DECIMAL_DELTA_TAIL;
  }
}

// Special values (NaN payloads above all) travel as raw 32-bit halves, never through a JS number,
// so nothing on the way can canonicalise a staleness marker.
function writeRawBits(vals: Float64Array, i: number, w: ByteWriter): void {
  const u = new Uint32Array(vals.buffer, vals.byteOffset + i * 8, 2);
  w.writeU32(u[0]!);
  w.writeU32(u[1]!);
}

function allSameBits(vals: Float64Array, start: number, end: number): boolean {
  const u = new Uint32Array(vals.buffer, vals.byteOffset + start * 8, (end - start) * 2);
  const lo = u[0]!;
  const hi = u[1]!;
  for (let i = 2; i < u.length; i += 2) if (u[i] !== lo || u[i + 1] !== hi) return false;
  return true;
}

// zzLen is varintLen with the common small cases inlined (the choice below runs per block).
function zzLen(d: number): number {
  const z = d < 0 ? -2 * d - 1 : 2 * d;
  return z < 0x80 ? 1 : z < 0x4000 ? 2 : z < 0x200000 ? 3 : varintLen(d);
}

// ZSTD_DELTA2_SHARE: a stream that will be compressed takes delta-of-delta only when its varints
// are below this share of the plain deltas'. A counter with random increments has deltas spread
// over one range and delta-of-deltas over twice that range around zero: fewer varint bytes, but
// more entropy, so zstd shrinks the plain deltas more. Compressing both forms and keeping the
// smaller saved 0.2-0.6% more bytes but cost 60% more encoding CPU per merge; this share got most
// of the gain for nothing (merged S bench part: 1.517 → 1.488 B per value; L: 1.676 → 1.654).
const ZSTD_DELTA2_SHARE = 0.9;

/**
 * useDelta2 reports whether delta-of-delta encodes ms[0..n) in fewer bytes than plain deltas;
 * when the stream is to be compressed (zstd), only when clearly fewer (ZSTD_DELTA2_SHARE).
 */
function useDelta2(ms: Float64Array, n: number, zstd: boolean): boolean {
  let plain = 0;
  let second = 0;
  let d = ms[1]! - ms[0]!;
  for (let i = 2; i < n; i++) {
    const di = ms[i]! - ms[i - 1]!;
    plain += zzLen(di);
    second += zzLen(di - d);
    d = di;
  }
  if (zstd && plain >= MIN_COMPRESS_BYTES) return second < plain * ZSTD_DELTA2_SHARE;
  // Ties go to delta-of-delta: steady counters stay near zero in their second differences.
  return second <= plain;
}

function encodeXor(vals: Float64Array, start: number, end: number, w: ByteWriter): number {
  const n = end - start;
  const u = new Uint32Array(vals.buffer, vals.byteOffset + start * 8, n * 2);
  w.ensure(n * 8);
  const out = w.buf;
  const base = w.pos;
  let plo = 0;
  let phi = 0;
  for (let i = 0; i < n; i++) {
    const lo = u[2 * i]!;
    const hi = u[2 * i + 1]!;
    const xl = lo ^ plo;
    const xh = hi ^ phi;
    plo = lo;
    phi = hi;
    out[base + i] = xl & 0xff;
    out[base + n + i] = (xl >>> 8) & 0xff;
    out[base + 2 * n + i] = (xl >>> 16) & 0xff;
    out[base + 3 * n + i] = xl >>> 24;
    out[base + 4 * n + i] = xh & 0xff;
    out[base + 5 * n + i] = (xh >>> 8) & 0xff;
    out[base + 6 * n + i] = (xh >>> 16) & 0xff;
    out[base + 7 * n + i] = xh >>> 24;
  }
  w.pos = base + 8 * n;
  return V_FLOAT_XOR;
}
