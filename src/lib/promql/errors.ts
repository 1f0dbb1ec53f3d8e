/**
 * ParseError reports malformed query text. `offset` is the 0-based UTF-16 index into the
 * query, `line`/`col` are 1-based, and the message reads
 * `unexpected "}" at 1:14, expected label name` (or `<reason> at 1:14` without a token).
 * The HTTP layer maps it to 400.
 */
export class ParseError extends Error {
  readonly offset: number;
  readonly line: number;
  readonly col: number;
  readonly expected: string;

  constructor(source: string, offset: number, detail: string, expected = '', options?: ErrorOptions) {
    const { line, col } = lineCol(source, offset);
    super(`${detail} at ${line}:${col}${expected ? `, expected ${expected}` : ''}`, options);
    this.name = 'ParseError';
    this.offset = offset;
    this.line = line;
    this.col = col;
    this.expected = expected;
  }
}

/** lineCol converts a 0-based offset into 1-based line and column numbers. */
export function lineCol(source: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, source.length);
  for (let i = 0; i < end; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}
