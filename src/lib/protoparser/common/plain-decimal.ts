// Spelling a double the way Number::toString (and JSON.stringify) does, without V8's general
// shortest-digits search, for finite values from 1e-6 up to 1e15: the range where toString
// writes plain notation ("123.45", "0.000123") with at most 15 integer digits.
//
// toString prints the fewest significant digits that read back as v and, among those, the
// decimal nearest to v. Let n be v's number of integer digits (10^(n-1) <= |v| < 10^n).
//
// Up to 15 digits: if the integer m < 10^15 and m / 10^k (both exact doubles for k <= 22, so the
// division is correctly rounded) equals v, then v is the double nearest to the decimal m·10^-k.
// Two different decimals of at most 15 significant digits never round to the same double (the
// guarantee behind DBL_DIG = 15), so no other decimal of at most 15 digits reads back as v: the
// digits of m, with the smallest k, are the digits toString prints. If any such decimal exists
// it has at most 15 - n decimals, and m = round(v·10^(15-n)) finds it (v·10^(15-n) is within
// 0.25 of it), so one test decides whether v needs more than 15 digits.
//
// 16 or 17 digits: P = |v|·10^(17-n) lies in [10^16, 10^17) and is computed exactly as the sum
// of two doubles (Dekker's product). Every decimal of 17 digits or fewer is an integer multiple
// of 10^(n-17), an integer in units of P; those that read back as v are the integers within half
// a unit in the last place of v (in units of P, `half`) of P. The nearest multiple of ten is the
// best 16-digit candidate: it reads back when its distance to P is below `half`; otherwise the
// nearest integer, which always reads back (half > 0.55 in this range), gives 17 digits. Of two
// equally near candidates toString takes the even one (dyadic values such as 4096-multiples'
// ratios have such ties). A value is declined where its distance to a candidate is within
// rounding noise of `half` (whether it reads back then depends on rounding to even), and a power
// of two, whose lower neighbour is nearer than its upper one (none reaches that path in range).

const MINUS = 45;
const DOT = 46;
const ZERO = 48;
// Smallest and (exclusive) largest magnitude spelled here: below 1e-6 toString uses exponents,
// and 10^15 keeps P below 10^17 and the 15-digit mantissa below 2^53.
const MIN = 1e-6;
const MAX = 1e15;
// POW10[k] = 10^k, exact for k <= 22 (m < 10^15 and |v| >= 10^-6 need at most 21 decimals; P
// needs up to 22).
const POW10 = Float64Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));
// DECADE[i] is the double nearest to 10^(i-6): v has n integer digits when
// DECADE[n+5] <= |v| < DECADE[n+6], n from -5 (|v| >= 1e-6) to 15 (|v| < 1e15).
const DECADE = Float64Array.from({ length: 22 }, (_, i) => Number(`1e${i - 6}`));
// Dekker's split of each 10^k into two 26-bit halves, for the exact product |v|·10^k.
const SPLITTER = 134_217_729; // 2^27 + 1
const POW10_HI = POW10.map((p) => SPLITTER * p - (SPLITTER * p - p));
const POW10_LO = POW10.map((p, k) => p - POW10_HI[k]!);
// HALF_ULP[e]: half the gap between neighbouring doubles whose biased exponent is e.
const HALF_ULP = Float64Array.from({ length: 2048 }, (_, e) => 2 ** (e - 1076));
// Margin around the tie tests: the distances compared are exact to ~1e-14.
const TIE_MARGIN = 1e-9;
// Reads a double's bits: BITS_HIGH is the index of the word holding sign, exponent and top of the mantissa.
const BITS = new Float64Array(1);
const WORDS = new Uint32Array(BITS.buffer);
const BITS_HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** MAX_PLAIN_DECIMAL_CHARS bounds what PlainDecimals.write appends ("-0.00000" and 17 digits). */
export const MAX_PLAIN_DECIMAL_CHARS = 25;

/**
 * PlainDecimals writes values of one series after another as String(v) spells them, for finite
 * non-zero values from 1e-6 to 1e15 in magnitude. It remembers the number of decimals of the
 * last short value (the values of a series mostly share it) and the last number of integer
 * digits; reset() between series is optional and only drops those guesses.
 */
export class PlainDecimals {
  // The number of decimals of the last value of 15 digits or fewer; -1 after a longer one.
  #k = 0;
  #n = 1;

  reset(): void {
    this.#k = 0;
    this.#n = 1;
  }

  /**
   * write appends String(v), v = vs[i], to out at `at` and returns the end, or -1 (nothing
   * written) when v is not a finite non-zero value from 1e-6 to 1e15 in magnitude, or (next to
   * never) when its digits hinge on rounding to even. out must have MAX_PLAIN_DECIMAL_CHARS bytes of room at `at`.
   * The value is taken by index, not as a number: a double passed to a call V8 does not inline
   * is boxed (a heap number per value written).
   */
  write(out: Uint8Array, at: number, vs: ArrayLike<number>, i: number): number {
    const v = vs[i]!;
    const a = v < 0 ? -v : v;
    if (!(a >= MIN && a < MAX)) return -1; // NaN fails here too
    let k = this.#k;
    let m = k < 0 ? NaN : Math.round(a * POW10[k]!);
    if (!(m < MAX && m / POW10[k]! === a)) {
      const n = this.#digits(a);
      k = 15 - n;
      m = Math.round(a * POW10[k]!);
      if (m / POW10[k]! !== a) {
        this.#k = -1;
        return writeLong(out, at, vs, i, n);
      }
    }
    // A guess that fits may carry trailing zeros (1.5 after 1.25): the same decimal, shorter.
    const top = Math.floor(m * 1e-8);
    const end = writeTrimmed(out, at, v < 0, top, m - top * 1e8, k, 0);
    this.#k = trimmed;
    return end;
  }

  // #digits: the number of integer digits n of a in [MIN, MAX), searched from the last one.
  #digits(a: number): number {
    let n = this.#n;
    while (a < DECADE[n + 5]!) n--;
    while (a >= DECADE[n + 6]!) n++;
    this.#n = n;
    return n;
  }
}

// writeLong writes v, which has n integer digits and no decimal of 15 digits or fewer that reads
// back as it, with 16 or 17 digits (see the top of the file); -1 when it declines a tie.
function writeLong(out: Uint8Array, at: number, vs: ArrayLike<number>, i: number, n: number): number {
  const v = vs[i]!;
  const a = v < 0 ? -v : v;
  BITS[0] = a;
  const word = WORDS[BITS_HIGH]!;
  if ((word & 0xf_ffff) === 0 && WORDS[1 - BITS_HIGH] === 0) return -1; // a power of two
  const k = 17 - n;
  const p = POW10[k]!;
  // P = hi + lo exactly: hi, a double of at least 2^53, is an integer; |lo| <= 8.
  const hi = a * p;
  const t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  const lo = ah * POW10_HI[k]! - hi + ah * POW10_LO[k]! + al * POW10_HI[k]! + al * POW10_LO[k]!;
  const half = HALF_ULP[word >>> 20]! * p;
  // hi = top·10^8 + rest: top·10^8 is exact (a multiple of 2^8 whose other factor stays below
  // 2^53) and so is the difference; a quotient rounded across an integer is corrected when the
  // halves are written (writeTrimmed).
  const top = Math.floor(hi * 1e-8);
  let rest = hi - top * 1e8;
  // The nearest multiple of ten to P is hi + c (c = 10·tens - r) and gives the 16-digit
  // candidate; f·0.1 may round differently from f/10 only at a tie, where both are equally near.
  const r = ((rest | 0) % 10 + 10) % 10;
  let c = 10 * Math.round((r + lo) * 0.1) - r;
  const dist = Math.abs(c - lo);
  if (Math.abs(dist - half) <= TIE_MARGIN) return -1; // reads back or not by rounding to even
  if (lo === c - 5 || lo === c + 5) {
    // Two 16-digit candidates equally near P: both read back or neither; toString takes the even one.
    if (half > 5) {
      const other = lo === c - 5 ? c - 10 : c + 10;
      if ((((rest + c) / 10) & 1) === 1) c = other;
      rest += c;
    } else rest += roundHalfEven(lo);
  } else rest += dist < half ? c : roundHalfEven(lo);
  // Declined when P rounded out of [10^16, 10^17).
  return writeTrimmed(out, at, v < 0, top, rest, k, 1e8);
}

// roundHalfEven rounds x (|x| < 2^31) to the nearest integer, to the even one at a tie: toString's
// choice between two equally near 17-digit decimals (hi, the rest of P, is even).
function roundHalfEven(x: number): number {
  const down = Math.floor(x);
  const frac = x - down;
  return frac < 0.5 || (frac === 0.5 && (down & 1) === 0) ? down : down + 1;
}

// The number of decimals writeTrimmed wrote last.
let trimmed = 0;

// writeTrimmed appends (negative ? -1 : 1)·m·10^-k, m = top·10^8 + rest > 0 (rest within 10^8
// of [0, 10^8)), without trailing zeros after the point, and returns the end; -1 (nothing
// written) unless minTop <= m's digits above the last 8 < 10^9. (Remainders are taken on int32
// halves: % of doubles is a call into C.)
function writeTrimmed(out: Uint8Array, at: number, negative: boolean, top: number, rest: number, k: number, minTop: number): number {
  let lo = rest | 0;
  let hi = top | 0;
  if (lo < 0) {
    lo += 100_000_000;
    hi--;
  } else if (lo >= 100_000_000) {
    lo -= 100_000_000;
    hi++;
  }
  if (hi < minTop || hi >= 1e9) return -1;
  while (k > 0 && lo % 10 === 0) {
    lo = ((lo / 10) | 0) + (hi % 10) * 10_000_000;
    hi = (hi / 10) | 0;
    k--;
  }
  trimmed = k;
  if (negative) out[at++] = MINUS;
  return writeDecimal(out, at, hi, lo, k);
}

// Two ASCII digits per number below 100: writing digits in pairs halves the divisions.
const PAIRS = Uint8Array.from({ length: 200 }, (_, i) => ZERO + (i & 1 ? (i >> 1) % 10 : Math.floor((i >> 1) / 10)));

// writeDecimal appends m·10^-k in plain notation, m = hi·10^8 + lo > 0 (hi < 10^9, lo < 10^8;
// no trailing zero when k > 0).
function writeDecimal(out: Uint8Array, at: number, hi: number, lo: number, k: number): number {
  const d = hi > 0 ? 8 + digitCount(hi) : digitCount(lo);
  const n = d - k; // digits before the decimal point
  if (n <= 0) {
    out[at++] = ZERO;
    out[at++] = DOT;
    for (let i = n; i < 0; i++) out[at++] = ZERO;
    return writeDigits(out, at + d, hi, lo);
  }
  if (k === 0) return writeDigits(out, at + d, hi, lo);
  // The digits without the point, then the shorter side of the point moved by one.
  const end = at + d + 1;
  if (n <= k) {
    writeDigits(out, end, hi, lo);
    for (let i = at; i < at + n; i++) out[i] = out[i + 1]!;
    out[at + n] = DOT;
  } else {
    writeDigits(out, end - 1, hi, lo);
    for (let i = end - 1; i > end - 1 - k; i--) out[i] = out[i - 1]!;
    out[end - 1 - k] = DOT;
  }
  return end;
}

// writeDigits writes the digits of hi·10^8 + lo (lo's leading zeros included when hi > 0) so
// that they end at `end`, and returns end.
function writeDigits(out: Uint8Array, end: number, hi: number, lo: number): number {
  let pos = end;
  let x = lo;
  if (hi > 0) {
    for (let i = 0; i < 4; i++) {
      const q = (x / 100) | 0;
      const pair = (x - q * 100) << 1;
      out[--pos] = PAIRS[pair + 1]!;
      out[--pos] = PAIRS[pair]!;
      x = q;
    }
    x = hi;
  }
  while (x >= 100) {
    const q = (x / 100) | 0;
    const pair = (x - q * 100) << 1;
    out[--pos] = PAIRS[pair + 1]!;
    out[--pos] = PAIRS[pair]!;
    x = q;
  }
  if (x >= 10) {
    out[--pos] = PAIRS[(x << 1) + 1]!;
    out[--pos] = PAIRS[x << 1]!;
  } else out[--pos] = ZERO + x;
  return end;
}

// digitCount of 0 <= x < 1e9 (1 for 0).
function digitCount(x: number): number {
  let d = 1;
  while (d < 9 && x >= POW10[d]!) d++;
  return d;
}
