import { ErrorSummary } from './parse-error.ts';
import { isLineFailure } from './line-failure.ts';
import type { Row } from './row.ts';

/** RowsAndErrors is what a document parse() returns (JSON bodies): rows of the good items and the summary of the bad ones. */
export interface RowsAndErrors {
  readonly rows: Row[];
  readonly errors: ErrorSummary;
}

/**
 * ParseResult is what a line-oriented parse() returns: the rows of every good line, the summary of
 * the bad ones (count and first, with its 1-based line number), and how many lines the text held
 * (so a stream can number the lines of its next block).
 */
export interface ParseResult extends RowsAndErrors {
  readonly lines: number;
}

/**
 * LineParser parses text[start, end) — one line without its "\n" or trailing "\r", never empty —
 * pushing its rows onto `rows`, or throws a LineFailure. Rows it pushed before failing are removed
 * by the caller.
 */
export type LineParser = (text: string, start: number, end: number, rows: Row[]) => void;

/**
 * forEachLine calls onLine(start, end, line) for every non-empty line text[start, end) (without its
 * "\n" or trailing "\r"), numbered from firstLine, and adds each LineFailure it throws to errors
 * under its line number; returns how many lines text held. A UTF-8 byte order mark at the very start
 * of the input (firstLine 1) is skipped.
 */
export function forEachLine(text: string, firstLine: number, errors: ErrorSummary, onLine: (start: number, end: number) => void): number {
  const n = text.length;
  let i = firstLine === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = firstLine;
  while (i < n) {
    let eol = text.indexOf('\n', i);
    if (eol < 0) eol = n;
    const end = eol > i && text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol;
    if (end > i) {
      try {
        onLine(i, end);
      } catch (e) {
        if (!isLineFailure(e)) throw e;
        errors.add(e.reason, { line });
      }
    }
    i = eol + 1;
    line++;
  }
  return line - firstLine;
}

/**
 * parseLines runs parseLine over every non-empty line of text (see forEachLine); the rows a line
 * pushed before failing are removed.
 */
export function parseLines(text: string, firstLine: number, parseLine: LineParser): ParseResult {
  const rows: Row[] = [];
  const errors = new ErrorSummary();
  let mark = 0;
  const lines = forEachLine(text, firstLine, errors, (start, end) => {
    mark = rows.length;
    try {
      parseLine(text, start, end, rows);
    } catch (e) {
      rows.length = mark;
      throw e;
    }
  });
  return { rows, errors, lines };
}

/** countLines returns how many lines parseLines would number in text. */
export function countLines(text: string): number {
  let c = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) c++;
  return text.length > 0 && text.charCodeAt(text.length - 1) !== 10 ? c + 1 : c;
}
