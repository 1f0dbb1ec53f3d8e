// Plain decimal numbers read straight from bytes, for parsers that skip decoding text, with the
// value parseFloatRange (float.ts) gives their text: one IEEE operation for up to 15 significant
// digits and exponents within ±22, Number() of the text beyond (as parseFloatRange does). Anything
// else (NaN, Inf, exponents of 4 digits or more, stray characters) is left to the text parser.

// Powers of ten exact in float64, and the digit limit of Clinger's fast path (as float.ts).
const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const MAX_FAST_DIGITS = 15;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
// Longest number text (after its sign) readDecimal reads with Number(); longer ones go to the text parser.
const MAX_TOKEN = 64;

/**
 * NumberOut receives a number read by readDecimal or readInteger, at the index the caller names. A
 * typed array, not an object field: a float64 stored there is never boxed, whatever V8 decided for
 * an object's field or whether the call was inlined (an object `{ value }` cost a heap number per
 * read in the tsdb process, ~13 bytes of young garbage per row).
 */
export type NumberOut = Float64Array;

/**
 * readDecimal reads `[+-]digits[.digits][(e|E)[+-]digits]` at b[p] into out[at], exactly as
 * parseFloatRange would read that text, and returns the index after it; -1 when the text there is
 * not such a number, has an exponent of 4 digits or more, or is longer than MAX_TOKEN bytes (the
 * caller then parses the text). The caller checks what follows the number. A number outside the
 * one-operation subset (more than 15 significant digits, as every float64 a client spells in full
 * has, or an exponent beyond ±22) is read as parseFloatRange reads it, with Number() of its text.
 */
export function readDecimal(b: Uint8Array, p: number, out: NumberOut, at: number): number {
  const n = b.length;
  let c = p < n ? b[p]! : 0;
  let neg = false;
  if (c === MINUS || c === PLUS) {
    neg = c === MINUS;
    c = ++p < n ? b[p]! : 0;
  }
  const start = p;
  let m = 0;
  let nd = 0;
  let exp = 0;
  let digits = 0;
  for (; p < n && (c = b[p]!) >= 48 && c <= 57; p++, digits++) {
    if (m !== 0 || c !== 48) nd++;
    m = m * 10 + (c - 48);
  }
  if (c === DOT && p < n) {
    for (p++; p < n && (c = b[p]!) >= 48 && c <= 57; p++, digits++) {
      if (m !== 0 || c !== 48) nd++;
      m = m * 10 + (c - 48);
      exp--;
    }
  }
  if (digits === 0) return -1;
  if ((c | 32) === 101 && p < n) {
    let e = 0;
    let ed = 0;
    let eneg = false;
    c = ++p < n ? b[p]! : 0;
    if (c === MINUS || c === PLUS) {
      eneg = c === MINUS;
      p++;
    }
    for (; p < n && (c = b[p]!) >= 48 && c <= 57 && ed < 4; p++, ed++) e = e * 10 + (c - 48);
    if (ed === 0 || ed === 4) return -1;
    exp += eneg ? -e : e;
  }
  let v: number;
  if (nd > MAX_FAST_DIGITS || exp > 22 || exp < -22) {
    // Beyond one correctly rounded operation: the exact parse of the text, as parseFloatRange does.
    if (p - start > MAX_TOKEN) return -1;
    v = Number(String.fromCharCode.apply(null, b.subarray(start, p) as unknown as number[]));
  } else if (exp === 0) v = m;
  else if (exp > 0) v = m * POW10[exp]!;
  else v = m / POW10[-exp]!;
  out[at] = neg ? -v : v;
  return p;
}

/**
 * readInteger reads `[+-]digits` (which signs are allowed: `signs`) of at most 15 digits at b[p]
 * into out[at] and returns the index after it; -1 otherwise.
 */
export function readInteger(b: Uint8Array, p: number, out: NumberOut, at: number, signs: 'minus' | 'both' | 'none'): number {
  const n = b.length;
  let c = p < n ? b[p]! : 0;
  let neg = false;
  if ((c === MINUS && signs !== 'none') || (c === PLUS && signs === 'both')) {
    neg = c === MINUS;
    p++;
  }
  let v = 0;
  const d0 = p;
  for (; p < n && (c = b[p]!) >= 48 && c <= 57; p++) v = v * 10 + (c - 48);
  if (p === d0 || p - d0 > MAX_FAST_DIGITS) return -1;
  out[at] = neg ? -v : v;
  return p;
}
