// The keyed JSON-lines parser: one line is one series, so its key is found once and its samples go
// into KeyedColumns straight from the bytes, with no Row per sample, no decoded text and no
// JSON.parse of the values and timestamps arrays (on a long series those make most of the
// transient heap of an import). Only the "metric" object of a series not yet in the dictionary is
// decoded and parsed. Any line outside the plain shape read here (an error, an escape in a value
// string, an unknown key, …) is decoded alone and parsed by parse(), so rows and error messages are
// the row parser's by construction.

import { readDecimal, type NumberOut } from '../common/float-bytes.ts';
import { parseFloatText } from '../common/float.ts';
import type { KeyedColumns } from '../common/keyed-columns.ts';
import { isLineFailure } from '../common/line-failure.ts';
import { ErrorSummary } from '../common/parse-error.ts';
import type { Labels } from '../common/row.ts';
import type { SeriesKeyDictionary } from '../common/series-keys.ts';
import { metricLabels, parse } from './parse.ts';

/** JsonLineKeyedOptions configure parseJsonLinesKeyedBytes. */
export interface JsonLineKeyedOptions {
  /** firstLine is the number of the block's first line (default 1: the body's start). */
  readonly firstLine?: number;
  /** keys numbers the series; key texts are the canonical labels, key bytes the "metric" objects as sent. */
  readonly keys: SeriesKeyDictionary;
  /** out receives the samples; its table must be keys.table. */
  readonly out: KeyedColumns;
}

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const PLUS = 43;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const COLON = 58;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;
const NULL = Buffer.from('null');
// The keys of a line, and the bit each sets once seen.
const FIELDS: readonly (readonly [Buffer, number])[] = [[Buffer.from('metric'), 1], [Buffer.from('values'), 2], [Buffer.from('timestamps'), 4]];
const ALL_FIELDS = 7;

/**
 * parseJsonLinesKeyedBytes is the JSON-lines parse() for a block of whole lines given as UTF-8
 * bytes, appending rows to opts.out as key numbers instead of Rows: the same rows, errors and line
 * count as parse(decoded text). A line is recorded whole or not at all.
 */
export function parseJsonLinesKeyedBytes(block: Buffer, opts: JsonLineKeyedOptions): { readonly errors: ErrorSummary; readonly lines: number } {
  if (opts.out.table !== opts.keys.table) throw new Error('cannot parse into a batch of another key table: clear the batch with the dictionary\'s current table first');
  return new JsonLineByteParser(block, opts.keys, opts.out).run(opts.firstLine ?? 1);
}

class JsonLineByteParser {
  readonly #b: Buffer;
  readonly #keys: SeriesKeyDictionary;
  readonly #out: KeyedColumns;
  readonly #errors = new ErrorSummary();
  readonly #num: NumberOut = { value: 0 };
  // The samples of the line being read, until both arrays are known to match.
  #values: Float64Array<ArrayBuffer> = new Float64Array(1024);
  #timestamps: Float64Array<ArrayBuffer> = new Float64Array(1024);
  #nv = 0;
  #nt = 0;
  #key = -1;

  constructor(b: Buffer, keys: SeriesKeyDictionary, out: KeyedColumns) {
    this.#b = b;
    this.#keys = keys;
    this.#out = out;
  }

  run(firstLine: number): { errors: ErrorSummary; lines: number } {
    const b = this.#b;
    const n = b.length;
    let line = firstLine;
    let i = 0;
    // A byte order mark is for the text parser to skip (alone, it is no line at all).
    if (firstLine === 1 && n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
      if (n === 3) return { errors: this.#errors, lines: 0 };
      i = this.#slow(0, line++);
    }
    while (i < n) {
      const next = this.#fast(i);
      i = next >= 0 ? next : this.#slow(i, line);
      line++;
    }
    return { errors: this.#errors, lines: line - firstLine };
  }

  // fast reads the line at start when it is blank or a plain series object, returning where the
  // next line starts, or -1 to leave it to #slow (nothing was recorded then).
  #fast(start: number): number {
    const b = this.#b;
    const n = b.length;
    let p = start;
    while (p < n && (b[p] === SPACE || b[p] === TAB)) p++;
    // Blank as parse() sees it: spaces and tabs, then the line's end (one "\r" before it is cut).
    if (p === n || b[p] === LF) return p + 1;
    if (b[p] === CR && (p + 1 === n || b[p + 1] === LF)) return p + 2;
    if (b[p] !== LBRACE) return -1;
    this.#nv = 0;
    this.#nt = 0;
    let seen = 0;
    p = this.#space(p + 1);
    for (;;) {
      const f = this.#field(p);
      if (f < 0 || (seen & FIELDS[f]![1]) !== 0) return -1;
      seen |= FIELDS[f]![1];
      p = this.#space(p + FIELDS[f]![0].length + 2);
      if (p >= n || b[p] !== COLON) return -1;
      p = this.#space(p + 1);
      p = f === 0 ? this.#metric(p) : this.#numbers(p, f === 1);
      if (p < 0) return -1;
      p = this.#space(p);
      if (p < n && b[p] === COMMA) {
        p = this.#space(p + 1);
        continue;
      }
      if (p >= n || b[p] !== RBRACE) return -1;
      break;
    }
    p = this.#space(p + 1);
    if (p < n && b[p] !== LF) return -1;
    const count = this.#nv;
    if (seen !== ALL_FIELDS || count === 0 || count !== this.#nt) return -1;
    const out = this.#out;
    const k = this.#key;
    for (let j = 0; j < count; j++) out.push(k, this.#timestamps[j]!, this.#values[j]!);
    return p + 1;
  }

  // space skips JSON whitespace (a line holds no "\n").
  #space(p: number): number {
    const b = this.#b;
    while (p < b.length && (b[p] === SPACE || b[p] === TAB || b[p] === CR)) p++;
    return p;
  }

  // field returns the index in FIELDS of the key string at p, or -1.
  #field(p: number): number {
    const b = this.#b;
    if (b[p] !== QUOTE) return -1;
    for (let f = 0; f < FIELDS.length; f++) {
      const name = FIELDS[f]![0];
      const e = p + 1 + name.length;
      if (e < b.length && b[e] === QUOTE && b.compare(name, 0, name.length, p + 1, e) === 0) return f;
    }
    return -1;
  }

  // metric finds the flat object at p and its key (in #key): by its bytes when they were seen
  // before, else by its labels, learning the bytes. Returns the index after it, or -1.
  #metric(p: number): number {
    const e = this.#flatObjectEnd(p);
    if (e < 0) return -1;
    const keys = this.#keys;
    const latin1 = this.#b.toString('latin1', p, e);
    let k = keys.getBytes(latin1);
    if (k < 0) {
      let labels: Labels;
      try {
        labels = metricLabels(JSON.parse(this.#b.toString('utf8', p, e)));
      } catch (err) {
        if (err instanceof SyntaxError || isLineFailure(err)) return -1;
        throw err;
      }
      k = keyOf(keys, labels);
      // A plain Uint8Array view: addBytes copies it (Buffer's slice() would not).
      keys.addBytes(latin1, new Uint8Array(this.#b.buffer, this.#b.byteOffset + p, e - p), k);
    }
    this.#key = k;
    return e;
  }

  // flatObjectEnd returns the index after the object at p, which must hold no object or array
  // (strings may hold anything); -1 otherwise. Only its bounds are found here: its bytes are
  // either a known metric's or parsed whole by JSON.parse.
  #flatObjectEnd(p: number): number {
    const b = this.#b;
    const n = b.length;
    if (b[p] !== LBRACE) return -1;
    for (let i = p + 1; i < n; i++) {
      const c = b[i]!;
      if (c === QUOTE) {
        for (i++; i < n && b[i] !== QUOTE; i++) if (b[i] === BACKSLASH) i++;
      } else if (c === RBRACE) {
        return i + 1;
      } else if (c === LBRACE || c === LBRACKET || c === LF) {
        return -1;
      }
    }
    return -1;
  }

  // numbers reads the array at p into #values (values: numbers, null or number strings) or
  // #timestamps (safe integers); returns the index after it, or -1 for anything parse() would
  // not take as it is (an empty array included: parse() names that error).
  #numbers(p: number, values: boolean): number {
    const b = this.#b;
    const n = b.length;
    if (b[p] !== LBRACKET) return -1;
    p = this.#space(p + 1);
    let count = 0;
    for (;;) {
      const e = values ? this.#value(p) : this.#number(p);
      if (e < 0) return -1;
      const v = this.#num.value;
      if (values) {
        if (count === this.#values.length) this.#values = grow(this.#values);
        this.#values[count++] = v;
      } else {
        if (!Number.isSafeInteger(v)) return -1;
        if (count === this.#timestamps.length) this.#timestamps = grow(this.#timestamps);
        this.#timestamps[count++] = v;
      }
      p = this.#space(e);
      if (p < n && b[p] === COMMA) {
        p = this.#space(p + 1);
        continue;
      }
      if (p >= n || b[p] !== RBRACKET) return -1;
      break;
    }
    if (values) this.#nv = count;
    else this.#nt = count;
    return p + 1;
  }

  // value reads a sample value at p into #num: a number, null (NaN), or a string of plain ASCII
  // that parseFloatText reads ("NaN", "Inf", "1.5"). Returns the index after it, or -1.
  #value(p: number): number {
    const b = this.#b;
    const n = b.length;
    const c = b[p];
    if (c === QUOTE) {
      let e = p + 1;
      for (; e < n && b[e] !== QUOTE; e++) if (b[e]! < 0x20 || b[e]! >= 0x7f || b[e] === BACKSLASH) return -1;
      if (e >= n) return -1;
      try {
        this.#num.value = parseFloatText(b.toString('latin1', p + 1, e));
      } catch (err) {
        if (isLineFailure(err)) return -1;
        throw err;
      }
      return e + 1;
    }
    if (c === NULL[0] && p + 4 <= n && b.compare(NULL, 0, 4, p, p + 4) === 0) {
      this.#num.value = NaN;
      return p + 4;
    }
    return this.#number(p);
  }

  // number reads a JSON number at p into #num, as JSON.parse does; returns the index after it, or -1.
  #number(p: number): number {
    const b = this.#b;
    const n = b.length;
    let e = p;
    if (e < n && b[e] === MINUS) e++;
    if (e < n && b[e] === ZERO) e++;
    else if (e < n && b[e]! > ZERO && b[e]! <= NINE) e = digits(b, e + 1);
    else return -1;
    if (e < n && b[e] === DOT) {
      const d = e + 1;
      e = digits(b, d);
      if (e === d) return -1;
    }
    if (e < n && (b[e]! | 32) === 101) {
      let d = e + 1;
      if (d < n && (b[d] === PLUS || b[d] === MINUS)) d++;
      e = digits(b, d);
      if (e === d) return -1;
    }
    // The fast reader takes most numbers; it is exact where it answers (see float-bytes.ts).
    if (readDecimal(b, p, this.#num) !== e) this.#num.value = Number(b.toString('latin1', p, e));
    return e;
  }

  // slow decodes the line at start and parses it with parse(); its rows go under the key of their labels.
  #slow(start: number, line: number): number {
    const b = this.#b;
    const eol = b.indexOf(LF, start);
    const end = eol < 0 ? b.length : eol;
    const res = parse(b.toString('utf8', start, end), { firstLine: line });
    this.#errors.merge(res.errors);
    const rows = res.rows;
    if (rows.length > 0) {
      const k = keyOf(this.#keys, rows[0]!.labels);
      for (const row of rows) this.#out.push(k, row.timestamp, row.value);
    }
    return end + 1;
  }
}

// keyOf returns the key of canonical labels, adding it when new. Rows made from the table carry
// no rawKey (the key text is not a format's own spelling of the series).
function keyOf(keys: SeriesKeyDictionary, labels: Labels): number {
  const text = JSON.stringify(labels);
  const k = keys.get(text);
  return k >= 0 ? k : keys.add(text, labels, '');
}

function digits(b: Buffer, p: number): number {
  while (p < b.length && b[p]! >= ZERO && b[p]! <= NINE) p++;
  return p;
}

function grow(a: Float64Array): Float64Array<ArrayBuffer> {
  const g = new Float64Array(a.length * 2);
  g.set(a);
  return g;
}
