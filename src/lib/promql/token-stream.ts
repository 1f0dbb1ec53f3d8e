// TokenStream: a cursor over tokens with the lookahead and error helpers the parser needs.

import { ParseError } from './errors.ts';
import type { Token } from './lexer.ts';

/** MAX_NESTING bounds parser recursion so deep input fails cleanly instead of overflowing the stack. */
export const MAX_NESTING = 500;

export class TokenStream {
  readonly src: string;
  private readonly toks: readonly Token[];
  private i = 0;
  /** nesting is shared with the streams of WITH template bodies parsed on behalf of this one. */
  readonly nesting: { depth: number };

  /** toks must end with an 'eof' token. */
  constructor(src: string, toks: readonly Token[], nesting: { depth: number } = { depth: 0 }) {
    this.src = src;
    this.toks = toks;
    this.nesting = nesting;
  }

  /** nested runs fn one recursion level deeper, failing cleanly past MAX_NESTING. */
  nested<T>(fn: () => T): T {
    if (++this.nesting.depth > MAX_NESTING) {
      this.nesting.depth--;
      throw this.fail(`query is nested deeper than ${MAX_NESTING} levels`);
    }
    try {
      return fn();
    } finally {
      this.nesting.depth--;
    }
  }

  /** peek returns the token k positions ahead (the eof token past the end). */
  peek(k = 0): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)]!;
  }

  next(): Token {
    const t = this.peek();
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }

  /** position/restore support the few places that need to look further ahead. */
  get position(): number {
    return this.i;
  }

  /** slice returns tokens [from, to) of the underlying list. */
  slice(from: number, to: number): Token[] {
    return this.toks.slice(from, to);
  }

  isPunct(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'punct' && t.text === text;
  }

  /** isWord: an identifier equal to word ignoring case (PromQL keywords are case-insensitive). */
  isWord(word: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'ident' && t.text.toLowerCase() === word;
  }

  acceptPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.next();
    return true;
  }

  acceptWord(word: string): boolean {
    if (!this.isWord(word)) return false;
    this.next();
    return true;
  }

  expectPunct(text: string, expected = `"${text}"`): Token {
    if (!this.isPunct(text)) throw this.unexpected(expected);
    return this.next();
  }

  /** unexpected builds `unexpected "<tok>" at l:c, expected <expected>` for the current token. */
  unexpected(expected: string, tok: Token = this.peek()): ParseError {
    const what = tok.kind === 'eof' ? 'unexpected end of input' : `unexpected ${JSON.stringify(tok.text)}`;
    return new ParseError(this.src, tok.pos, what, expected);
  }

  /** fail builds a ParseError with a free-form message at tok. */
  fail(message: string, tok: Token = this.peek()): ParseError {
    return new ParseError(this.src, tok.pos, message);
  }
}
