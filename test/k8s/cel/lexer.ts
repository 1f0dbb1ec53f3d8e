// Tokenizer for the CEL subset used by x-kubernetes-validations rules.

/** CelParseError is the only error the lexer and parser throw for bad input. */
export class CelParseError extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} at offset ${position}`);
    this.name = 'CelParseError';
    this.position = position;
  }
}

/** Token is one lexical unit; `value` holds the decoded literal for numbers and strings. */
export type Token =
  | { readonly type: 'int'; readonly value: number; readonly pos: number }
  | { readonly type: 'double'; readonly value: number; readonly pos: number }
  | { readonly type: 'string'; readonly value: string; readonly pos: number }
  | { readonly type: 'ident'; readonly value: string; readonly pos: number }
  | { readonly type: 'op'; readonly value: string; readonly pos: number }
  | { readonly type: 'eof'; readonly pos: number };

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '+', '-', '*', '/', '%', '?', ':', '.', ',', '(', ')', '[', ']', '{', '}'];
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?', a: '\x07', b: '\b', f: '\f', v: '\v' };

function readString(src: string, start: number, raw: boolean): { value: string; end: number } {
  const quote = src[start]!;
  const triple = src.startsWith(quote.repeat(3), start);
  const closing = triple ? quote.repeat(3) : quote;
  let i = start + closing.length;
  let value = '';
  while (i < src.length) {
    if (src.startsWith(closing, i)) return { value, end: i + closing.length };
    const ch = src[i]!;
    if (!triple && (ch === '\n' || ch === '\r')) throw new CelParseError('newline in string literal', i);
    if (ch === '\\' && !raw) {
      const next = src[i + 1];
      if (next === undefined) break;
      const esc = ESCAPES[next];
      if (esc !== undefined) {
        value += esc;
        i += 2;
        continue;
      }
      if (next === 'u' || next === 'x') {
        const len = next === 'u' ? 4 : 2;
        const hex = src.slice(i + 2, i + 2 + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new CelParseError('bad escape sequence', i);
        value += String.fromCharCode(parseInt(hex, 16));
        i += 2 + len;
        continue;
      }
      throw new CelParseError(`unknown escape \\${next}`, i);
    }
    value += ch;
    i++;
  }
  throw new CelParseError('unterminated string literal', start);
}

function readNumber(src: string, start: number): { token: Token; end: number } {
  const m = /^(0x[0-9a-fA-F]+|[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)(u|U)?/.exec(src.slice(start));
  if (m === null) throw new CelParseError('bad number', start);
  const text = m[1]!;
  const end = start + m[0].length;
  if (m[2] !== undefined || m[3] !== undefined) return { token: { type: 'double', value: Number(text), pos: start }, end };
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new CelParseError('integer literal out of range', start);
  return { token: { type: 'int', value, pos: start }, end };
}

/** tokenize splits a CEL expression into tokens; throws CelParseError on bad input. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const isRaw = (ch === 'r' || ch === 'R') && (src[i + 1] === '"' || src[i + 1] === "'");
    if (ch === '"' || ch === "'" || isRaw) {
      const s = readString(src, isRaw ? i + 1 : i, isRaw);
      tokens.push({ type: 'string', value: s.value, pos: i });
      i = s.end;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const n = readNumber(src, i);
      tokens.push(n.token);
      i = n.end;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      tokens.push({ type: 'ident', value: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) throw new CelParseError(`unexpected character ${JSON.stringify(ch)}`, i);
    tokens.push({ type: 'op', value: op, pos: i });
    i += op.length;
  }
  tokens.push({ type: 'eof', pos: src.length });
  return tokens;
}
