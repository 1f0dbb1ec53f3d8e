// Metadata lines of the Prometheus text format (and OpenMetrics):
//   # HELP <name> <text>     text with \\ and \n escapes
//   # TYPE <name> <type>     counter, gauge, histogram, summary, untyped (OpenMetrics: unknown,
//                            gaugehistogram, info, stateset)
//   # UNIT <name> <unit>
// The name may be quoted (Prometheus 3 UTF-8 names: `# HELP "my.metric" …`). Any other comment,
// or a metadata line that does not parse, is an ordinary comment: it is ignored, never an error.

import { hashBytes, hashText, METRIC_TYPES, type MetadataSink, type MetadataUpdate, type MetricType, type RecentLines } from '../common/metadata.ts';
import { BACKSLASH, QUOTE, SPACE, TAB } from '../common/chars.ts';

const TYPES: ReadonlyMap<string, MetricType> = new Map<string, MetricType>([...METRIC_TYPES.map((t) => [t, t] as const), ['untyped', 'unknown']]);

/**
 * parseMetadataLine reads the comment line s[start, end) (s[start] is "#", no line break) and
 * returns what it says about a metric family, or undefined when it is not a metadata line.
 */
export function parseMetadataLine(s: string, start: number, end: number): MetadataUpdate | undefined {
  let p = skipBlanks(s, start + 1, end);
  if (p === start + 1 || end - p < 6) return undefined;
  const keyword = s.slice(p, p + 4);
  if (keyword !== 'HELP' && keyword !== 'TYPE' && keyword !== 'UNIT') return undefined;
  p += 4;
  const nameStart = skipBlanks(s, p, end);
  if (nameStart === p || nameStart >= end) return undefined;
  let metric: string;
  if (s.charCodeAt(nameStart) === QUOTE) {
    let q = nameStart + 1;
    while (q < end && s.charCodeAt(q) !== QUOTE) q += s.charCodeAt(q) === BACKSLASH ? 2 : 1;
    if (q >= end) return undefined;
    metric = unescape(s, nameStart + 1, q, true);
    p = q + 1;
  } else {
    p = nameStart;
    while (p < end && s.charCodeAt(p) !== SPACE && s.charCodeAt(p) !== TAB) p++;
    metric = s.slice(nameStart, p);
  }
  if (metric === '') return undefined;
  const textStart = skipBlanks(s, p, end);
  if (textStart === p && p < end) return undefined; // the name runs into other text
  switch (keyword) {
    case 'HELP':
      return { metric, help: unescape(s, textStart, end, false) };
    case 'UNIT':
      return { metric, unit: s.slice(textStart, end).trimEnd() };
    default: {
      const type = TYPES.get(s.slice(textStart, end).trimEnd().toLowerCase());
      return type === undefined ? undefined : { metric, type };
    }
  }
}

/**
 * MetadataCapture takes the comment lines of a body for one sink: the text parsers call `text`,
 * the byte parser `bytes`, for every line starting with "#". Plain comments cost a look at their
 * first bytes; a metadata line handed on within `recent`'s window (the same HELP every scrape)
 * costs a hash and is not decoded again.
 */
export class MetadataCapture {
  readonly #sink: MetadataSink;
  readonly #recent: RecentLines | undefined;

  constructor(sink: MetadataSink, recent?: RecentLines) {
    this.#sink = sink;
    this.#recent = recent;
  }

  /** text handles the comment line s[start, end) (s[start] is "#", no line break), read at `now` (ms). */
  text(s: string, start: number, end: number, now: number): void {
    const p = skipBlanks(s, start + 1, end);
    if (p === start + 1 || p + 5 > end || !isKeyword(s.charCodeAt(p), s.charCodeAt(p + 1), s.charCodeAt(p + 2), s.charCodeAt(p + 3), s.charCodeAt(p + 4))) return;
    if (this.#recent !== undefined && !this.#recent.fresh(hashText(s, start, end), now)) return;
    const u = parseMetadataLine(s, start, end);
    if (u !== undefined) this.#sink(u);
  }

  /** bytes is `text` for the UTF-8 line b[start, end) (b[start] is "#", no line break). */
  bytes(b: Uint8Array, start: number, end: number, now: number): void {
    let p = start + 1;
    while (p < end && (b[p] === SPACE || b[p] === TAB)) p++;
    if (p === start + 1 || p + 5 > end || !isKeyword(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!)) return;
    if (this.#recent !== undefined && !this.#recent.fresh(hashBytes(b, start, end), now)) return;
    const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8', start, end);
    const u = parseMetadataLine(text, 0, text.length);
    if (u !== undefined) this.#sink(u);
  }
}

// isKeyword: the five characters are HELP, TYPE or UNIT and a blank.
function isKeyword(c0: number, c1: number, c2: number, c3: number, blank: number): boolean {
  if (blank !== SPACE && blank !== TAB) return false;
  if (c0 === 72) return c1 === 69 && c2 === 76 && c3 === 80; // HELP
  if (c0 === 84) return c1 === 89 && c2 === 80 && c3 === 69; // TYPE
  return c0 === 85 && c1 === 78 && c2 === 73 && c3 === 84; // UNIT
}

function skipBlanks(s: string, p: number, end: number): number {
  let c = 0;
  while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
  return p;
}

// unescape turns \\ and \n (and \" inside quotes) into what they stand for; other backslashes stay.
function unescape(s: string, from: number, to: number, quoted: boolean): string {
  const bs = s.indexOf('\\', from);
  if (bs < 0 || bs >= to) return s.slice(from, to);
  let out = '';
  let last = from;
  for (let p = bs; p < to - 1; p++) {
    if (s.charCodeAt(p) !== BACKSLASH) continue;
    const next = s.charCodeAt(p + 1);
    const rep = next === BACKSLASH ? '\\' : next === 110 ? '\n' : quoted && next === QUOTE ? '"' : undefined;
    if (rep === undefined) continue;
    out += s.slice(last, p) + rep;
    p++;
    last = p + 1;
  }
  return out + s.slice(last, to);
}
