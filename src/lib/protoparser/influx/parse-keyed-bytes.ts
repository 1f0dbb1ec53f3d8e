import { runByteLines, type FastSlowLines } from '../common/byte-lines.ts';
import { readDecimal, readInteger, type NumberOut } from '../common/float-bytes.ts';
import type { KeyedColumns } from '../common/keyed-columns.ts';
import { ErrorSummary } from '../common/parse-error.ts';
import type { SeriesKeyDictionary } from '../common/series-keys.ts';
import { parse, type InfluxParseOptions, type InfluxPrecision } from './parse.ts';

/** InfluxKeyedOptions configure parseInfluxKeyedBytes. */
export interface InfluxKeyedOptions extends Omit<InfluxParseOptions, 'firstLine'> {
  readonly firstLine?: number;
  /**
   * keys numbers the (series, field) pairs; it must be used only with these naming options and
   * this `db`, which shape the labels together with the line.
   */
  readonly keys: SeriesKeyDictionary;
  /** out receives the samples; its table must be keys.table. */
  readonly out: KeyedColumns;
}

// Char codes as local constants, not imported from common/chars.ts: this fast path ran ~25% slower
// with the imported ones (bench/parse-speed.ts, influx keyed, 120k rows: CPU medians 93-110 ms
// against 68-82 ms, runs alternating with the old code); V8 does not fold imported bindings here.
const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const HASH = 35;
const COMMA = 44;
const EQ = 61;
const BACKSLASH = 92;
const MINUS = 45;
const MAX_FIELDS = 64;
// Digits dropped (sub-millisecond units) or scale applied to reach ms, by precision.
const DROP: Record<InfluxPrecision, number> = { ns: 6, us: 3, ms: 0, s: 0, m: 0, h: 0 };
const SCALE: Record<InfluxPrecision, number> = { ns: 1, us: 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const BOOL_WORDS: ReadonlyMap<string, number> = new Map([['t', 1], ['T', 1], ['true', 1], ['True', 1], ['TRUE', 1], ['f', 0], ['F', 0], ['false', 0], ['False', 0], ['FALSE', 0]]);

/**
 * parseInfluxKeyedBytes is the influx parse() for a block of whole lines given as UTF-8 bytes,
 * appending rows to opts.out as key numbers instead of Rows: the same rows, errors and line count
 * as parse(decoded text). A line without escapes or quotes whose (series, field) pairs are known
 * and whose values and timestamp are plain numbers is read straight from the bytes, each field's
 * key predicted from the previous row or looked up by bytes; any other line is decoded alone and
 * parsed by parse(), which also teaches the dictionary its keys.
 */
export function parseInfluxKeyedBytes(block: Buffer, opts: InfluxKeyedOptions): { readonly errors: ErrorSummary; readonly lines: number } {
  if (opts.out.table !== opts.keys.table) throw new Error('cannot parse into a batch of another key table: clear the batch with the dictionary\'s current table first');
  return new InfluxByteParser(block, opts).run();
}

class InfluxByteParser implements FastSlowLines {
  readonly #b: Buffer;
  // A DataView of the block, for SeriesKeyDictionary.bytesAt.
  readonly #view: DataView;
  readonly #o: InfluxKeyedOptions;
  readonly #keys: SeriesKeyDictionary;
  readonly #out: KeyedColumns;
  readonly #now: number;
  readonly #precision: InfluxPrecision;
  readonly #errors = new ErrorSummary();
  readonly #num: NumberOut = new Float64Array(1);
  // The fields of the line being read: key byte ranges and values.
  readonly #fieldStart = new Int32Array(MAX_FIELDS);
  readonly #fieldEnd = new Int32Array(MAX_FIELDS);
  readonly #fieldValue = new Float64Array(MAX_FIELDS);
  readonly #fieldKey = new Int32Array(MAX_FIELDS);
  #nf = 0;
  #seriesEnd = 0;
  #single = false;

  constructor(b: Buffer, o: InfluxKeyedOptions) {
    this.#b = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.#o = o;
    this.#keys = o.keys;
    this.#out = o.out;
    this.#now = o.now();
    this.#precision = o.precision ?? 'ns';
  }

  run(): { errors: ErrorSummary; lines: number } {
    const lines = runByteLines(this.#b, this.#o.firstLine ?? 1, this);
    return { errors: this.#errors, lines };
  }

  // fast reads the line at start when it is plain (see the function comment), returning where the
  // next line starts, or -1 to leave it to slow (nothing was recorded then).
  fast(start: number): number {
    const b = this.#b;
    const n = b.length;
    const c0 = b[start]!;
    if (c0 === LF) return start + 1;
    if (c0 === CR && start + 1 < n && b[start + 1] === LF) return start + 2;
    if (c0 === HASH) {
      const eol = b.indexOf(LF, start);
      return eol < 0 ? n : eol + 1;
    }
    let p = this.#scan(start);
    if (p < 0) return -1;
    let c = 0;
    while (p < n && b[p] === SPACE) p++;
    let ts = this.#now;
    if (p < n && (c = b[p]!) !== LF && c !== CR) {
      p = this.#timestamp(p);
      if (p < 0) return -1;
      ts = this.#num[0]!;
      while (p < n && b[p] === SPACE) p++;
    }
    if (p < n && b[p] === CR) {
      if (p + 1 < n && b[p + 1] !== LF) return -1;
      p++;
    }
    if (p < n && b[p] !== LF) return -1;
    // Every field's key first: a line is recorded whole or not at all.
    for (let f = 0; f < this.#nf; f++) {
      const k = this.#key(start, f);
      if (k < 0) return -1;
      this.#fieldKey[f] = k;
    }
    const out = this.#out;
    for (let f = 0; f < this.#nf; f++) out.push(this.#fieldKey[f]!, ts, this.#fieldValue[f]!);
    return p + 1;
  }

  // scan reads the series and the fields of the line at start (no escapes, no quotes, numeric
  // values only); returns the index after the fields, or -1.
  #scan(start: number): number {
    const b = this.#b;
    const n = b.length;
    let p = start;
    let c = 0;
    let measurementEnd = -1;
    for (; p < n && (c = b[p]!) !== SPACE; p++) {
      if (c === COMMA && measurementEnd < 0) measurementEnd = p;
      else if (c === BACKSLASH || c === QUOTE || c === LF || c === CR) return -1;
    }
    if (p >= n || p === start) return -1;
    this.#seriesEnd = p;
    if (measurementEnd < 0) measurementEnd = p;
    while (p < n && b[p] === SPACE) p++;
    let nf = 0;
    for (;;) {
      if (nf === MAX_FIELDS) return -1;
      const ks = p;
      while (p < n && (c = b[p]!) !== EQ && c !== COMMA && c !== SPACE && c !== LF && c !== CR && c !== BACKSLASH && c !== QUOTE) p++;
      if (p >= n || c !== EQ || p === ks) return -1;
      this.#fieldStart[nf] = ks;
      this.#fieldEnd[nf] = p;
      p = this.#value(p + 1, nf);
      if (p < 0) return -1;
      nf++;
      if (p < n && b[p] === COMMA) {
        p++;
        continue;
      }
      break;
    }
    this.#nf = nf;
    this.#single = nf === 1 && measurementEnd > start && this.#o.skipSingleField === true;
    return p;
  }

  // value reads field f's value at p (a float, an integer with i or u, or a boolean word) and
  // returns the index after it, which must end the token; -1 for anything else.
  #value(p: number, f: number): number {
    const b = this.#b;
    const n = b.length;
    const c = p < n ? b[p]! : 0;
    let e: number;
    if (c === 116 || c === 84 || c === 102 || c === 70) {
      // t T f F: a boolean word
      e = p;
      while (e < n && b[e] !== COMMA && b[e] !== SPACE && b[e] !== LF && b[e] !== CR) e++;
      const v = BOOL_WORDS.get(b.toString('latin1', p, e));
      if (v === undefined) return -1;
      this.#fieldValue[f] = v;
      return e;
    }
    e = readDecimal(b, p, this.#num, 0);
    if (e < 0) return -1;
    const last = e < n ? b[e]! : 0;
    if (last === 105 || last === 117) {
      // i or u: an integer field, written as digits only (with a minus for i)
      const ie = readInteger(b, p, this.#num, 0, last === 105 ? 'minus' : 'none');
      if (ie !== e) return -1;
      e++;
    }
    if (e < n && (e === p || ((b[e]! !== COMMA && b[e]! !== SPACE && b[e]! !== LF && b[e]! !== CR)))) return -1;
    this.#fieldValue[f] = this.#num[0]!;
    return e;
  }

  // timestamp reads `-?digits` in the request's precision into #num as ms, as toMillis does.
  #timestamp(p: number): number {
    const b = this.#b;
    const n = b.length;
    const neg = b[p] === MINUS;
    const d0 = neg ? p + 1 : p;
    let e = d0;
    let zeros = true;
    while (e < n && b[e]! >= 48 && b[e]! <= 57) {
      if (b[e] !== 48) zeros = false;
      e++;
    }
    if (e === d0 || (e < n && b[e] !== SPACE && b[e] !== LF && b[e] !== CR)) return -1;
    const keep = e - d0 - DROP[this.#precision];
    if (keep > 15) return -1;
    let ms = 0;
    for (let i = d0; i < d0 + keep; i++) ms = ms * 10 + (b[i]! - 48);
    ms *= SCALE[this.#precision];
    if (!Number.isSafeInteger(ms)) return -1;
    this.#num[0] = zeros ? this.#now : neg && ms !== 0 ? -ms : ms;
    return e;
  }

  // key returns the number of field f of the line at start: predicted from the previous row, or
  // looked up by its bytes (series, a space, the field key, and "," for a single-field name).
  #key(start: number, f: number): number {
    const keys = this.#keys;
    const b = this.#b;
    const fs = this.#fieldStart[f]!;
    const fe = this.#fieldEnd[f]!;
    const se = this.#seriesEnd;
    const single = this.#single;
    const len = se - start + 1 + fe - fs + (single ? 1 : 0);
    const prev = f > 0 ? this.#fieldKey[f - 1]! : this.#out.lastKey;
    const predicted = keys.predict(prev);
    const kb = predicted >= 0 ? keys.keyBytes(predicted) : undefined;
    if (kb !== undefined && kb.length === len && keys.bytesAt(predicted, b, this.#view, start, se - start) && matchesRest(kb, b, se - start, fs, fe, single)) return predicted;
    const k = keys.getBytes(keyLatin1(b, start, se, fs, fe, single));
    if (k >= 0) keys.follow(prev, k);
    return k;
  }

  // slow decodes the line at start and parses it with parse(); learns the keys of its rows.
  slow(start: number, line: number): number {
    const b = this.#b;
    const eol = b.indexOf(LF, start);
    const end = eol < 0 ? b.length : eol;
    const res = parse(b.toString('utf8', start, end), { ...this.#o, now: () => this.#now, firstLine: line });
    this.#errors.merge(res.errors);
    if (res.rows.length > 0) {
      // The fast scan's fields match the rows one to one when the line is plain; otherwise the
      // keys are the label sets themselves (rare lines: escapes, string fields).
      const plain = this.#scan(start) >= 0 && this.#nf === res.rows.length;
      const keys = this.#keys;
      const out = this.#out;
      res.rows.forEach((row, f) => {
        let k: number;
        if (plain) {
          const latin1 = keyLatin1(b, start, this.#seriesEnd, this.#fieldStart[f]!, this.#fieldEnd[f]!, this.#single);
          k = keys.getBytes(latin1);
          if (k < 0) {
            k = keys.add(latin1, row.labels, '');
            keys.addBytes(latin1, Buffer.from(latin1, 'latin1'), k);
          }
        } else {
          const text = `\u0000${JSON.stringify(row.labels)}`;
          k = keys.get(text);
          if (k < 0) k = keys.add(text, row.labels, '');
        }
        keys.follow(out.lastKey, k);
        out.push(k, row.timestamp, row.value);
      });
    }
    return eol < 0 ? b.length : eol + 1;
  }
}

// matchesRest: whether key bytes kb continue past the series bytes (sl of them, compared by the
// caller) with a space, the field key b[fs, fe) and, for a single-field name, a comma.
function matchesRest(kb: Uint8Array, b: Uint8Array, sl: number, fs: number, fe: number, single: boolean): boolean {
  if (kb[sl] !== SPACE) return false;
  for (let j = fe - fs - 1; j >= 0; j--) if (kb[sl + 1 + j] !== b[fs + j]) return false;
  return !single || kb[kb.length - 1] === COMMA;
}

function keyLatin1(b: Buffer, start: number, se: number, fs: number, fe: number, single: boolean): string {
  const series = b.toString('latin1', start, se);
  const field = b.toString('latin1', fs, fe);
  return single ? `${series} ${field},` : `${series} ${field}`;
}
