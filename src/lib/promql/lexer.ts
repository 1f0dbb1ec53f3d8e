// Lexer: query text → tokens. Pure, one pass, no backtracking; every error is a ParseError
// naming the offending position.

import { ParseError } from './errors.ts';
import { decodeEscapedString } from './strings.ts';

export type TokenKind = 'ident' | 'number' | 'duration' | 'string' | 'punct' | 'eof';

/**
 * Token: `text` is the raw source slice; `num` holds the value of numbers (float) and
 * durations (seconds, or steps when `steps`); `str` the decoded value of strings.
 */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly pos: number;
  readonly end: number;
  readonly num: number;
  readonly str: string;
  readonly steps: boolean;
  /** spaceBefore: whitespace or a comment precedes the token (binds `offset` etc. loosely). */
  readonly spaceBefore: boolean;
}

const PUNCT2 = new Set(['==', '!=', '=~', '!~', '<=', '>=']);
const PUNCT1 = new Set(['(', ')', '{', '}', '[', ']', ',', ':', '@', '+', '-', '*', '/', '%', '^', '=', '<', '>', ';']);

/** DURATION_UNITS maps a unit suffix to seconds; `i` (MetricsQL steps) is handled apart. */
export const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000,
};
const UNIT_ORDER = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];

// MetricsQL number suffixes (`10Ki` = 10240).
const NUMBER_SUFFIXES: Readonly<Record<string, number>> = {
  K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15,
  Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5,
  KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4,
};

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const isAlpha = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
/** isIdentStart / isIdentChar: PromQL identifiers; ':' is allowed for recording-rule names. */
export const isIdentStart = (c: number): boolean => isAlpha(c) || c === 58;
export const isIdentChar = (c: number): boolean => isAlpha(c) || isDigit(c) || c === 58;

/** tokenize splits a query into tokens ending with one 'eof' token; throws ParseError. */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let spaceBefore = false;
  // Inside [...] only durations occur, and ':' separates a subquery's range and step.
  let bracketDepth = 0;
  const push = (kind: TokenKind, start: number, end: number, num = 0, str = '', steps = false): void => {
    out.push({ kind, text: src.slice(start, end), pos: start, end, num, str, steps, spaceBefore });
    spaceBefore = false;
  };
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      spaceBefore = true;
      continue;
    }
    if (c === 35 /* # */) {
      while (i < src.length && src.charCodeAt(i) !== 10) i++;
      spaceBefore = true;
      continue;
    }
    if (c === 34 || c === 39 || c === 96) {
      const { value, end } = lexString(src, i);
      push('string', i, end, 0, value);
      i = end;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
      i = lexNumberOrDuration(src, i, push);
      continue;
    }
    if (c === 91) bracketDepth++;
    else if (c === 93 && bracketDepth > 0) bracketDepth--;
    if (isIdentStart(c) && !(bracketDepth > 0 && c === 58)) {
      let j = i + 1;
      const inner = bracketDepth > 0 ? (x: number): boolean => isIdentChar(x) && x !== 58 : isIdentChar;
      while (j < src.length && inner(src.charCodeAt(j))) j++;
      push('ident', i, j);
      i = j;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (PUNCT2.has(two)) {
      push('punct', i, i + 2);
      i += 2;
    } else if (PUNCT1.has(src[i]!)) {
      push('punct', i, i + 1);
      i += 1;
    } else {
      throw new ParseError(src, i, `unexpected character ${JSON.stringify(String.fromCodePoint(src.codePointAt(i)!))}`);
    }
  }
  push('eof', src.length, src.length);
  return out;
}

type Push = (kind: TokenKind, start: number, end: number, num?: number, str?: string, steps?: boolean) => void;

function scanDecimal(src: string, i: number): number {
  let j = i;
  while (isDigit(src.charCodeAt(j))) j++;
  if (src.charCodeAt(j) === 46) {
    j++;
    while (isDigit(src.charCodeAt(j))) j++;
  }
  return j;
}

function lexNumberOrDuration(src: string, start: number, push: Push): number {
  if (src.charCodeAt(start) === 48 && (src[start + 1] === 'x' || src[start + 1] === 'X')) {
    let j = start + 2;
    while (isHex(src.charCodeAt(j))) j++;
    if (j === start + 2) throw new ParseError(src, start, `bad number "${src.slice(start, j + 1)}"`);
    ensureNumberEnd(src, start, j);
    push('number', start, j, parseInt(src.slice(start + 2, j), 16));
    return j;
  }
  let j = scanDecimal(src, start);
  const unit = durationUnitAt(src, j);
  if (unit !== null) return lexDuration(src, start, push);
  if (src[j] === 'e' || src[j] === 'E') {
    let k = j + 1;
    if (src[k] === '+' || src[k] === '-') k++;
    if (!isDigit(src.charCodeAt(k))) throw new ParseError(src, start, `bad number "${src.slice(start, k + 1)}"`);
    while (isDigit(src.charCodeAt(k))) k++;
    j = k;
  }
  const text = src.slice(start, j);
  let value = /^0[0-7]+$/.test(text) ? parseInt(text, 8) : Number(text);
  const suffix = numberSuffixAt(src, j);
  if (suffix) {
    value *= NUMBER_SUFFIXES[suffix]!;
    j += suffix.length;
  }
  ensureNumberEnd(src, start, j);
  push('number', start, j, value);
  return j;
}

function ensureNumberEnd(src: string, start: number, j: number): void {
  const glued = (c: number): boolean => isAlpha(c) || isDigit(c) || c === 46;
  if (j < src.length && glued(src.charCodeAt(j))) {
    let k = j;
    while (k < src.length && glued(src.charCodeAt(k))) k++;
    throw new ParseError(src, start, `bad number or duration "${src.slice(start, k)}"`);
  }
}

function numberSuffixAt(src: string, j: number): string | null {
  for (const len of [3, 2, 1]) {
    const s = src.slice(j, j + len);
    if (s.length === len && NUMBER_SUFFIXES[s] !== undefined && !isIdentChar(src.charCodeAt(j + len))) return s;
  }
  return null;
}

/** durationUnitAt returns the unit starting at j if it ends there (not followed by ident chars). */
function durationUnitAt(src: string, j: number): string | null {
  if (src.startsWith('ms', j) && !isAlpha(src.charCodeAt(j + 2))) return 'ms';
  const u = src[j];
  if (u !== undefined && (DURATION_UNITS[u] !== undefined || u === 'i')) {
    const next = src.charCodeAt(j + 1);
    if (!isAlpha(next)) return u;
  }
  return null;
}


// lexDuration reads `1h30m`, `1.5m`, `90s`, `5i`: units must descend and not repeat.
function lexDuration(src: string, start: number, push: Push): number {
  let j = start;
  let seconds = 0;
  let lastUnit = -1;
  for (;;) {
    const numEnd = scanDecimal(src, j);
    if (numEnd === j) break;
    const unit = durationUnitAt(src, numEnd);
    if (unit === null) throw new ParseError(src, start, `bad duration "${src.slice(start, numEnd + 1)}"`);
    const n = Number(src.slice(j, numEnd));
    if (unit === 'i') {
      if (j !== start) throw new ParseError(src, start, `bad duration "${src.slice(start, numEnd + 1)}"`);
      const end = numEnd + 1;
      ensureNumberEnd(src, start, end);
      push('duration', start, end, n, '', true);
      return end;
    }
    const order = UNIT_ORDER.indexOf(unit);
    if (order <= lastUnit) throw new ParseError(src, start, `bad duration "${src.slice(start, numEnd + unit.length)}": units out of order`);
    lastUnit = order;
    seconds += n * DURATION_UNITS[unit]!;
    j = numEnd + unit.length;
    if (!isDigit(src.charCodeAt(j))) break;
  }
  ensureNumberEnd(src, start, j);
  push('duration', start, j, roundSeconds(seconds));
  return j;
}

// roundSeconds keeps whole milliseconds exact: 1.1s is 1100ms, not 1.0999999.
function roundSeconds(s: number): number {
  const ms = Math.round(s * 1000);
  return Math.abs(ms - s * 1000) < 1e-6 ? ms / 1000 : s;
}

function lexString(src: string, start: number): { value: string; end: number } {
  const quote = src[start]!;
  let j = start + 1;
  if (quote === '`') {
    while (j < src.length && src[j] !== '`') j++;
    if (j >= src.length) throw new ParseError(src, start, 'unterminated raw string');
    return { value: src.slice(start + 1, j), end: j + 1 };
  }
  while (j < src.length && src[j] !== quote) {
    if (src[j] === '\n') throw new ParseError(src, j, 'unterminated quoted string');
    j += src[j] === '\\' ? 2 : 1;
  }
  if (j >= src.length) throw new ParseError(src, start, 'unterminated quoted string');
  const value = decodeEscapedString(src, start + 1, j, quote);
  return { value, end: j + 1 };
}
