// Number parsing and formatting shared by the text formats. Parsing works on a range of a larger
// string so the hot path never allocates a substring for ordinary numbers; formatting always gives
// the shortest text that parses back to the same float64.

import { fail, quote } from './line-failure.ts';

// Powers of ten that are exact in float64 (10^22 is the largest).
const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

// Clinger's fast path: a mantissa below 2^53 scaled by an exact power of ten is one correctly rounded
// IEEE operation, so the result equals what a full decimal parser returns. 15 digits keep m < 2^53.
const MAX_FAST_DIGITS = 15;
const MAX_EXP_DIGITS = 6;

/**
 * parseFloatRange parses s[start, end) as a float64 the way Go's strconv.ParseFloat does for the
 * inputs metrics clients send: an optional sign, decimal digits with an optional fraction and
 * exponent, or NaN / Inf / Infinity in any letter case. Hex floats, underscores, blanks and empty
 * text are rejected (Number() would accept several of them). Throws a LineFailure when invalid.
 */
export function parseFloatRange(s: string, start: number, end: number): number {
  let i = start;
  let neg = false;
  let c = i < end ? s.charCodeAt(i) : 0;
  if (c === 45 || c === 43) {
    neg = c === 45;
    i++;
  }
  let m = 0;
  let nd = 0; // significant digits seen
  let exp = 0;
  let sawDigit = false;
  for (; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    sawDigit = true;
    if (m !== 0 || d !== 0) nd++;
    m = m * 10 + d;
  }
  if (i < end && s.charCodeAt(i) === 46) {
    for (i++; i < end; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      sawDigit = true;
      if (m !== 0 || d !== 0) nd++;
      m = m * 10 + d;
      exp--;
    }
  }
  if (!sawDigit) return parseSpecial(s, start, i, end, neg);
  if (i < end && (s.charCodeAt(i) | 32) === 101) {
    i++;
    let eneg = false;
    c = i < end ? s.charCodeAt(i) : 0;
    if (c === 45 || c === 43) {
      eneg = c === 45;
      i++;
    }
    let e = 0;
    let ed = 0;
    for (; i < end; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      if (ed < MAX_EXP_DIGITS) e = e * 10 + d;
      ed++;
    }
    if (ed === 0) fail(`cannot parse number ${quote(s.slice(start, end))}: missing exponent digits`);
    exp += eneg ? -e : e;
  }
  if (i !== end) fail(`cannot parse number ${quote(s.slice(start, end))}`);
  let v: number;
  if (nd <= MAX_FAST_DIGITS && exp === 0) v = m;
  else if (nd <= MAX_FAST_DIGITS && exp > 0 && exp <= 22) v = m * POW10[exp]!;
  else if (nd <= MAX_FAST_DIGITS && exp < 0 && exp >= -22) v = m / POW10[-exp]!;
  else {
    // Grammar already checked, so Number() sees only plain decimal syntax here.
    v = Number(s.slice(neg || s.charCodeAt(start) === 43 ? start + 1 : start, end));
  }
  return neg ? -v : v;
}

function parseSpecial(s: string, start: number, i: number, end: number, neg: boolean): number {
  const word = s.slice(i, end).toLowerCase();
  if (word === 'nan') return NaN;
  if (word === 'inf' || word === 'infinity') return neg ? -Infinity : Infinity;
  return fail(`cannot parse number ${quote(s.slice(start, end))}`);
}

/** parseFloatText parses a whole string with parseFloatRange's grammar. */
export function parseFloatText(s: string): number {
  return parseFloatRange(s, 0, s.length);
}

/**
 * parseIntRange parses s[start, end) as an optionally negative decimal integer that must be a safe
 * JS integer (|v| < 2^53). Throws a LineFailure naming `what` otherwise.
 */
export function parseIntRange(s: string, start: number, end: number, what: string): number {
  let i = start;
  let neg = false;
  const c = i < end ? s.charCodeAt(i) : 0;
  if (c === 45 || c === 43) {
    neg = c === 45;
    i++;
  }
  if (i === end) fail(`cannot parse ${what} ${quote(s.slice(start, end))}`);
  let v = 0;
  for (let j = i; j < end; j++) {
    const d = s.charCodeAt(j) - 48;
    if (d < 0 || d > 9) fail(`cannot parse ${what} ${quote(s.slice(start, end))}`);
    v = v * 10 + d;
  }
  if (end - i > MAX_FAST_DIGITS && !Number.isSafeInteger(v)) {
    fail(`${what} ${quote(s.slice(start, end))} is out of range`);
  }
  return neg ? -v : v;
}

/** formatFloat gives the shortest decimal that parses back to v, keeping the sign of -0. NaN/Inf as "NaN", "+Inf", "-Inf" (Prometheus and Go spelling). */
export function formatFloat(v: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (Number.isFinite(v)) return String(v);
  if (v !== v) return 'NaN';
  return v > 0 ? '+Inf' : '-Inf';
}
