// Spelling a double the way Number::toString (and JSON.stringify) does, without V8's general
// shortest-digits search, for the common case of values that are short decimals (gauges stored
// with a few decimals, counters, anything the storage keeps as mantissa × 10^-k).
//
// Why it is exact: if the integer m < 10^15 and m / 10^k (both exact doubles for k <= 22, so the
// division is correctly rounded) equals v, then v is the double nearest to the decimal m·10^-k.
// Two different decimals of at most 15 significant digits never round to the same double (the
// guarantee behind DBL_DIG = 15), so no other decimal of at most 15 digits reads back as v: the
// digits of m, with the smallest k, are the unique shortest round-trip digits that ECMAScript's
// Number::toString prints. From 1e-6 up to 1e15 it prints them in plain notation ("123.45",
// "0.000123"), which is all this writer produces; any other value is left to the caller.

const MINUS = 45;
const DOT = 46;
const ZERO = 48;
// Smallest and (exclusive) largest magnitude spelled here: below 1e-6 toString uses exponents,
// and 10^15 bounds the mantissa to 15 digits.
const MIN = 1e-6;
const MAX = 1e15;
// m < 10^15 and |v| >= 10^-6 need at most 21 decimals.
const MAX_K = 21;
const POW10 = Float64Array.from({ length: 23 }, (_, k) => 10 ** k);

/** MAX_SHORT_DECIMAL_CHARS bounds what ShortDecimals.write appends ("-0.00000" and 15 digits). */
export const MAX_SHORT_DECIMAL_CHARS = 23;

/**
 * ShortDecimals writes values of one series after another as String(v) spells them, when that
 * spelling is a short plain decimal. It remembers the number of decimals of the last value (the
 * values of a series mostly share it), which saves the search for the next one; reset() between
 * series is optional and only drops that guess.
 */
export class ShortDecimals {
  #k = 0;

  reset(): void {
    this.#k = 0;
  }

  /**
   * write appends String(v) to out at `at` and returns the end, or -1 (nothing written) when v is
   * not a finite non-zero value from 1e-6 to 1e15 in magnitude with at most 15 significant
   * digits. out must have MAX_SHORT_DECIMAL_CHARS bytes of room at `at`.
   */
  write(out: Uint8Array, at: number, v: number): number {
    const a = v < 0 ? -v : v;
    if (!(a >= MIN && a < MAX)) return -1; // NaN fails here too
    let k = this.#k;
    let p = POW10[k]!;
    let m = Math.round(a * p);
    if (m < MAX && m / p === a) {
      // A guess that fits may carry trailing zeros (1.5 after 1.25): the same decimal, shorter.
      while (k > 0 && m % 10 === 0) {
        m /= 10;
        k--;
      }
    } else {
      for (k = 0; ; k++) {
        if (k > MAX_K) return -1;
        p = POW10[k]!;
        m = Math.round(a * p);
        if (m >= MAX) return -1;
        if (m / p === a) break;
      }
    }
    this.#k = k;
    if (v < 0) out[at++] = MINUS;
    return writeDecimal(out, at, m, k);
  }
}

// writeDecimal appends m·10^-k in plain notation (m > 0 has no trailing zero when k > 0).
function writeDecimal(out: Uint8Array, at: number, m: number, k: number): number {
  // Two int32 halves: digit loops on int32 compile to multiplications, on doubles to divisions.
  const hi = m < 1e8 ? 0 : Math.floor(m / 1e8);
  const lo = m - hi * 1e8;
  const d = hi > 0 ? 8 + digitCount(hi) : digitCount(lo);
  const n = d - k; // digits before the decimal point
  let end: number;
  if (n > 0) end = at + d + (k > 0 ? 1 : 0);
  else {
    out[at++] = ZERO;
    out[at++] = DOT;
    for (let i = n; i < 0; i++) out[at++] = ZERO;
    end = at + d;
  }
  // Backwards from the end: k decimals, the point (when n > 0), the rest.
  // The low half gives 8 digits (its leading zeros included) before the high half starts.
  let pos = end;
  let x = lo;
  for (let i = 1; i <= d; i++) {
    const q = (x / 10) | 0;
    out[--pos] = ZERO + x - q * 10;
    x = i === 8 ? hi : q;
    if (i === k && n > 0) out[--pos] = DOT;
  }
  return end;
}

// digitCount of 0 <= x < 1e8 (1 for 0).
function digitCount(x: number): number {
  let d = 1;
  while (d < 8 && x >= POW10[d]!) d++;
  return d;
}
