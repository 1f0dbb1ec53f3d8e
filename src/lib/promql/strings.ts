// String literals: decoding Go-style escapes and quoting for the printer.
//
// PromQL strings are Go strings, i.e. bytes: `"\xc5"` is one byte that is not valid UTF-8.
// JS strings cannot hold such bytes, so an invalid byte b is kept as the lone surrogate
// U+DC00+b ("surrogateescape"). `isValidUtf8` then reports false for such a string, and the
// printer writes the byte back as `\xHH`, so printing round-trips.

import { ParseError } from './errors.ts';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\',
};

/** decodeEscapedString decodes src[from, to) of a string opened by `quote`; throws ParseError. */
export function decodeEscapedString(src: string, from: number, to: number, quote: string): string {
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) {
      out += decodeUtf8Bytes(bytes);
      bytes = [];
    }
  };
  let i = from;
  while (i < to) {
    const ch = src[i]!;
    if (ch !== '\\') {
      flush();
      out += ch;
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    if (SIMPLE_ESCAPES[e] !== undefined || e === quote) {
      flush();
      out += SIMPLE_ESCAPES[e] ?? e;
      i += 2;
    } else if (e >= '0' && e <= '7') {
      bytes.push(readDigits(src, i, 3, 8, 255));
      i += 4;
    } else if (e === 'x') {
      bytes.push(readDigits(src, i, 2, 16, 255, 2));
      i += 4;
    } else if (e === 'u' || e === 'U') {
      flush();
      const n = e === 'u' ? 4 : 8;
      const cp = readDigits(src, i, n, 16, 0x10ffff, 2);
      if (cp >= 0xd800 && cp <= 0xdfff) throw new ParseError(src, i, 'invalid Unicode code point in escape sequence');
      out += String.fromCodePoint(cp);
      i += 2 + n;
    } else {
      throw new ParseError(src, i, `unknown escape sequence "\\${e}"`);
    }
  }
  flush();
  return out;
}

function readDigits(src: string, at: number, n: number, base: number, max: number, skip = 1): number {
  const digits = src.slice(at + skip, at + skip + n);
  const re = base === 8 ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/;
  if (digits.length !== n || !re.test(digits)) {
    throw new ParseError(src, at, `bad escape sequence "${src.slice(at, at + skip + n)}"`);
  }
  const v = parseInt(digits, base);
  if (v > max) throw new ParseError(src, at, `escape sequence "${src.slice(at, at + skip + n)}" is out of range`);
  return v;
}

/** decodeUtf8Bytes decodes bytes as UTF-8, mapping each invalid byte b to U+DC00+b. */
export function decodeUtf8Bytes(bytes: readonly number[]): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const [len, min] = b < 0x80 ? [1, 0] : b >= 0xc2 && b < 0xe0 ? [2, 0x80] : b >= 0xe0 && b < 0xf0 ? [3, 0x800] : b >= 0xf0 && b < 0xf5 ? [4, 0x10000] : [0, 0];
    let cp = len === 1 ? b : len === 2 ? b & 0x1f : len === 3 ? b & 0x0f : b & 0x07;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) ok = false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (ok) {
      out += String.fromCodePoint(cp);
      i += len;
    } else {
      out += String.fromCharCode(0xdc00 + b);
      i++;
    }
  }
  return out;
}

/** isValidUtf8 reports whether s came from valid UTF-8 (holds no escaped invalid bytes). */
export function isValidUtf8(s: string): boolean {
  return s.isWellFormed();
}

/** quoteString writes s as a double-quoted PromQL string that decodes back to s. */
export function quoteString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += '\\\\';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdbff && isLow(s.charCodeAt(i + 1))) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else if (c >= 0xdc80 && c <= 0xdcff) out += `\\x${(c - 0xdc00).toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += s[i]!;
  }
  return out + '"';
}

const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
