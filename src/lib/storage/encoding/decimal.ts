// Decimal conversion: most metric values are short decimals (counters, byte counts, 12.5 %) that
// a float64 spells with 15+ noisy digits. Writing them as mantissa × 10^exponent with a small
// integer mantissa makes deltas tiny. Every conversion is verified by decoding it with the exact
// expression decodeDecimal uses, so a value round-trips bit for bit or is not converted at all.

/** MAX_MANTISSA bounds |mantissa| so deltas and delta-of-deltas stay exact doubles. */
export const MAX_MANTISSA = 2 ** 50;

/** NOT_DECIMAL is returned by decimalExponent for values kept as raw float64 bits. */
export const NOT_DECIMAL = 1000;

const P10: number[] = [];
for (let k = 0; k <= 22; k++) P10.push(Number(`1e${k}`));

/** pow10 returns 10^k exactly for 0 <= k <= 22. */
export function pow10(k: number): number {
  return P10[k]!;
}

/**
 * decimalExponent returns the exponent e (-15..22) of the shortest exact mantissa × 10^e for v,
 * or NOT_DECIMAL for NaN, ±Inf, -0 and values needing more than MAX_MANTISSA.
 */
export function decimalExponent(v: number): number {
  if (Number.isInteger(v)) {
    if (v === 0) return Object.is(v, -0) ? NOT_DECIMAL : 0;
    if (Math.abs(v) <= MAX_MANTISSA) return 0;
    for (let k = 1; k <= 22; k++) {
      const m = Math.round(v / P10[k]!);
      if (Math.abs(m) <= MAX_MANTISSA && m * P10[k]! === v) return k;
    }
    return NOT_DECIMAL;
  }
  if (v !== v || v === Infinity || v === -Infinity) return NOT_DECIMAL;
  for (let k = 1; k <= 15; k++) {
    const m = Math.round(v * P10[k]!);
    if (Math.abs(m) > MAX_MANTISSA) return NOT_DECIMAL;
    if (m / P10[k]! === v) return -k;
  }
  return NOT_DECIMAL;
}

/**
 * toMantissa returns the mantissa of v at exponent e, or NaN when v is not exactly
 * mantissa × 10^e with |mantissa| <= MAX_MANTISSA.
 */
export function toMantissa(v: number, e: number): number {
  const m = e <= 0 ? Math.round(v * P10[-e]!) : Math.round(v / P10[e]!);
  if (!(Math.abs(m) <= MAX_MANTISSA)) return NaN;
  return decodeDecimal(m, e) === v && !Object.is(v, -0) ? m : NaN;
}

/** decodeDecimal returns mantissa × 10^e; e must be in -22..22. */
export function decodeDecimal(m: number, e: number): number {
  return e < 0 ? m / P10[-e]! : e === 0 ? m : m * P10[e]!;
}
