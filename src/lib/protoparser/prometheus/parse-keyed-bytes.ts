import { runByteLines, type FastSlowLines } from '../common/byte-lines.ts';
import { BACKSLASH, CR, HASH, LBRACE, LF, QUOTE, RBRACE, SPACE, TAB } from '../common/chars.ts';
import { readDecimal, readInteger, type NumberOut } from '../common/float-bytes.ts';
import type { KeyedColumns } from '../common/keyed-columns.ts';
import { ErrorSummary } from '../common/parse-error.ts';
import type { SeriesKeyDictionary } from '../common/series-keys.ts';
import type { MetadataCapture } from './metadata.ts';
import { parseKeyed, type KeyedParseResult, type PrometheusKeyedOptions } from './parse-keyed.ts';


// Indexes of ByteLineParser's #row: KeyedColumns.pushRow's layout.
const TS = 0;
const VALUE = 1;

// endsToken reports whether a number token ends at b[p]: a blank, the line's end, or the block's.
function endsToken(b: Uint8Array, p: number): boolean {
  if (p >= b.length) return true;
  const c = b[p]!;
  return c === SPACE || c === TAB || c === LF || c === CR;
}

/**
 * parseKeyedBytes is parseKeyed for a block of whole lines given as UTF-8 bytes: the same rows,
 * errors and line count as parseKeyed(text decoded), without decoding the text. A line whose key
 * bytes are known (predicted from the previous line, or looked up by bytes) and whose value and
 * timestamp are plain decimals is read straight from the bytes; any other line (a new key, a
 * comment after the sample, NaN, a bad line…) is decoded alone and handed to parseKeyed, which then
 * records its key's bytes for the next time.
 */
export function parseKeyedBytes(block: Buffer, opts: PrometheusKeyedOptions): KeyedParseResult {
  if (opts.out.table !== opts.keys.table) throw new Error('cannot parse into a batch of another key table: clear the batch with the dictionary\'s current table first');
  return new ByteLineParser(block, opts).run();
}

class ByteLineParser implements FastSlowLines {
  readonly #b: Buffer;
  readonly #view: DataView;
  readonly #o: PrometheusKeyedOptions;
  readonly #keys: SeriesKeyDictionary;
  readonly #out: KeyedColumns;
  readonly #now: number;
  readonly #metadata: MetadataCapture | undefined;
  readonly #errors = new ErrorSummary();
  // The line's timestamp (TS) and value (VALUE) as #timestamp and #number read them: kept in a
  // typed array and handed to the batch as such, so no float64 is ever boxed on the way.
  readonly #row: NumberOut = new Float64Array(2);

  constructor(b: Buffer, o: PrometheusKeyedOptions) {
    this.#b = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.#o = o;
    this.#keys = o.keys;
    this.#out = o.out;
    this.#now = o.now();
    this.#metadata = o.metadata;
  }

  run(): KeyedParseResult {
    const lines = runByteLines(this.#b, this.#o.firstLine ?? 1, this);
    return { errors: this.#errors, lines };
  }

  // fast reads the line at start when it is a known key with plain numbers, returning where the next
  // line starts, or -1 to leave the line to slow (nothing was recorded then).
  fast(start: number): number {
    const b = this.#b;
    const n = b.length;
    let i = start;
    let c = 0;
    while (i < n && ((c = b[i]!) === SPACE || c === TAB)) i++;
    if (i === n) return n;
    if (c === LF) return i + 1;
    if (c === HASH) {
      const eol = b.indexOf(LF, i);
      if (this.#metadata !== undefined) {
        const e = eol < 0 ? n : eol;
        this.#metadata.bytes(b, i, b[e - 1] === CR ? e - 1 : e, this.#now);
      }
      return eol < 0 ? n : eol + 1;
    }
    const keys = this.#keys;
    const prev = this.#out.lastKey;
    let k = keys.predict(prev);
    let p = k >= 0 ? this.#predictedEnd(k, i) : -1;
    if (p < 0) {
      p = scanKeyBytes(b, i);
      if (p <= i) return -1;
      k = keys.getBytes(b.toString('latin1', i, p));
      if (k < 0) return -1;
      keys.follow(prev, k);
    }
    while (p < n && ((c = b[p]!) === SPACE || c === TAB)) p++;
    p = this.#number(p);
    if (p < 0) return -1;
    while (p < n && ((c = b[p]!) === SPACE || c === TAB)) p++;
    if (p < n && c !== LF && c !== CR) {
      p = this.#timestamp(p);
      if (p < 0) return -1;
      while (p < n && ((c = b[p]!) === SPACE || c === TAB)) p++;
    } else {
      this.#row[TS] = this.#now;
    }
    if (p < n && c === CR) c = b[++p] ?? LF;
    if (p < n && c !== LF) return -1;
    this.#out.pushRow(k, this.#row);
    return p + 1;
  }

  // predictedEnd: where the key ends when the line starts with key k's bytes (as parse-keyed.ts).
  #predictedEnd(k: number, i: number): number {
    const b = this.#b;
    if (!this.#keys.bytesAt(k, b, this.#view, i)) return -1;
    const kb = this.#keys.keyBytes(k)!;
    const len = kb.length;
    const p = i + len;
    if (kb[len - 1] === RBRACE || p === b.length) return p;
    let q = p;
    let c = 0;
    while (q < b.length && ((c = b[q]!) === SPACE || c === TAB)) q++;
    if (q === p) return c === LF || c === CR ? p : -1;
    return q === b.length || c !== LBRACE ? p : -1;
  }

  // number reads a plain decimal value at p into #row[VALUE], as parseFloatRange would; returns
  // the index after it, or -1 for anything else (then the line goes the slow way).
  #number(p: number): number {
    const e = readDecimal(this.#b, p, this.#row, VALUE);
    return e < 0 || !endsToken(this.#b, e) ? -1 : e;
  }

  // timestamp reads an integer of at most 15 digits (optional sign) into #row[TS], as parseIntRange.
  #timestamp(p: number): number {
    const e = readInteger(this.#b, p, this.#row, TS, 'both');
    return e < 0 || !endsToken(this.#b, e) ? -1 : e;
  }

  // slow decodes the line at start and parses it with parseKeyed; then records the bytes of its
  // key, so the next line with them takes the fast path. Returns where the next line starts.
  slow(start: number, line: number): number {
    const b = this.#b;
    const eol = b.indexOf(LF, start);
    const end = eol < 0 ? b.length : eol;
    const out = this.#out;
    const before = out.length;
    const res = parseKeyed(b.toString('utf8', start, end), { now: () => this.#now, firstLine: line, keys: this.#keys, out, metadata: this.#metadata });
    this.#errors.merge(res.errors);
    if (out.length > before) this.#learn(start, end, out.keys[out.length - 1]!);
    return eol < 0 ? b.length : eol + 1;
  }

  #learn(start: number, end: number, k: number): void {
    const b = this.#b;
    let i = start;
    let c = 0;
    while (i < end && ((c = b[i]!) === SPACE || c === TAB)) i++;
    const p = scanKeyBytes(b, i);
    if (p <= i || p > end) return;
    const latin1 = b.toString('latin1', i, p);
    if (this.#keys.getBytes(latin1) === k) return;
    // Bytes that are not valid UTF-8 decode to another text: they must not stand for this key.
    if (b.toString('utf8', i, p) !== this.#out.table.rawKeys[k]) return;
    this.#keys.addBytes(latin1, b.subarray(i, p), k);
  }
}

/**
 * scanKeyBytes returns where the series key starting at b[start] ends, as scanKey does on text,
 * looking no further than the end of the line: after the name when no "{" follows, else after
 * the "}" closing the labels (quotes and escapes respected). -1 without a closing "}".
 */
export function scanKeyBytes(b: Uint8Array, start: number): number {
  const n = b.length;
  let c = 0;
  let p = start;
  while (p < n && (c = b[p]!) !== LBRACE && c !== SPACE && c !== TAB && c !== LF) p++;
  let q = p;
  while (q < n && ((c = b[q]!) === SPACE || c === TAB)) q++;
  if (q >= n || c !== LBRACE) return p;
  for (q++; q < n; q++) {
    c = b[q]!;
    if (c === RBRACE) return q + 1;
    if (c === LF) return -1;
    if (c !== QUOTE) continue;
    for (q++; q < n && (c = b[q]!) !== QUOTE && c !== LF; q++) if (c === BACKSLASH) q++;
    if (q >= n || c === LF) return -1;
  }
  return -1;
}
