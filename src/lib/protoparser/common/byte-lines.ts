import { LF } from './chars.ts';

/**
 * FastSlowLines is what runByteLines drives over a block of whole lines (UTF-8 bytes). fast reads
 * the line starting at `start` straight from the bytes when it is a common case it knows (a known
 * key, plain numbers) and returns where the next line starts, or -1 having recorded nothing; slow
 * then parses the line the general way (decoded, full grammar, errors counted under `line`) and
 * returns where the next line starts.
 */
export interface FastSlowLines {
  fast(start: number): number;
  slow(start: number, line: number): number;
}

/**
 * runByteLines runs the fast-line/slow-line parse of the keyed byte parsers over block and returns
 * how many lines it held, numbered from firstLine. A UTF-8 byte order mark at the start of a body
 * (firstLine 1) goes to the slow path, whose text parser skips it; alone it is no line at all.
 */
export function runByteLines(block: Uint8Array, firstLine: number, p: FastSlowLines): number {
  const n = block.length;
  let line = firstLine;
  let i = 0;
  if (firstLine === 1 && n >= 3 && block[0] === 0xef && block[1] === 0xbb && block[2] === 0xbf) {
    if (n === 3) return 0;
    i = p.slow(0, line++);
  }
  while (i < n) {
    const next = p.fast(i);
    i = next >= 0 ? next : p.slow(i, line);
    line++;
  }
  return line - firstLine;
}

/** lineEnd returns where the line starting at b[start] ends (its "\n", or the block's end). */
export function lineEnd(b: Uint8Array, start: number): number {
  const eol = b.indexOf(LF, start);
  return eol < 0 ? b.length : eol;
}
