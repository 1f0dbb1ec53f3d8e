// InfluxDB line protocol: `measurement[,tag=value…] field=value[,field=value…] [timestamp]`.
//
// Mapping to rows (VictoriaMetrics' documented rule, so Telegraf setups keep their metric names):
// - every numeric field becomes one row named `<measurement><separator><field>` (separator "_"),
//   including a field named `value` (`cpu value=1` → `cpu_value`); with an empty measurement the
//   name is the field key alone; options skipMeasurement (name = field key) and skipSingleField
//   (name = measurement when the line has exactly one field) mirror VictoriaMetrics' flags;
// - tags become labels (empty keys or values are skipped, a repeated key keeps its last value);
//   the `db` query arg becomes label `db` unless the line has a tag named db;
// - integers (`1i`, `1u`) and floats are values, booleans are 1/0, string fields are skipped (a
//   string is not a sample; VictoriaMetrics stores a best-effort number instead);
// - the timestamp is an integer in the request's precision (ns by default); a missing timestamp,
//   or 0 as VictoriaMetrics treats it, means now. Conversion to ms truncates toward zero.
// Escapes: `\,` `\ ` `\=` `\\` in measurement, tag keys/values and field keys; `\"` `\\` in strings.

import { InvalidArgumentError } from '../common/parse-error.ts';
import { parseFloatRange } from '../common/float.ts';
import { fail, isLineFailure, quote } from '../common/line-failure.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import { parseLines, type ParseResult } from '../common/parse-result.ts';
import { BACKSLASH, COMMA, EQ, QUOTE, SPACE } from '../common/chars.ts';

/** InfluxPrecision is the unit of line timestamps. */
export type InfluxPrecision = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h';

/** InfluxParseOptions configure parse. */
export interface InfluxParseOptions {
  /** Clock (ms) for lines without a timestamp; called once per parse call. */
  readonly now: () => number;
  readonly firstLine?: number;
  /** Unit of timestamps (the `precision` query arg); default ns. */
  readonly precision?: InfluxPrecision;
  /** The `db` query arg; becomes label `db` unless a line has a `db` tag. */
  readonly db?: string;
  /** Separator between measurement and field key; default "_". */
  readonly measurementFieldSeparator?: string;
  /** Name a single-field line after its measurement only. */
  readonly skipSingleField?: boolean;
  /** Name rows after the field key only. */
  readonly skipMeasurement?: boolean;
}

const PRECISIONS: Record<string, InfluxPrecision> = { '': 'ns', n: 'ns', ns: 'ns', u: 'us', us: 'us', 'µ': 'us', 'µs': 'us', ms: 'ms', s: 's', m: 'm', h: 'h' };

/** parsePrecision validates the `precision` query arg (n/ns, u/us/µ, ms, s, m, h; empty = ns). */
export function parsePrecision(arg: string | undefined): InfluxPrecision {
  const p = PRECISIONS[arg ?? ''];
  if (p === undefined) throw new InvalidArgumentError('precision', `${quote(arg ?? '')} is not one of ns, us, ms, s, m, h`);
  return p;
}

/** parse parses influx lines; bad lines are counted and skipped. */
export function parse(text: string, opts: InfluxParseOptions): ParseResult {
  const ctx: LineContext = {
    now: opts.now(),
    precision: opts.precision ?? 'ns',
    db: opts.db ?? '',
    sep: opts.measurementFieldSeparator ?? '_',
    skipSingleField: opts.skipSingleField === true,
    skipMeasurement: opts.skipMeasurement === true,
  };
  return parseLines(text, opts.firstLine ?? 1, (s, start, end, rows) => parseLine(s, start, end, rows, ctx));
}

interface LineContext {
  readonly now: number;
  readonly precision: InfluxPrecision;
  readonly db: string;
  readonly sep: string;
  readonly skipSingleField: boolean;
  readonly skipMeasurement: boolean;
}


// scan returns the index of the first unescaped a, b or c in [from, end), or end.
function scan(s: string, from: number, end: number, a: number, b: number, c = a): number {
  for (let i = from; i < end; i++) {
    const ch = s.charCodeAt(i);
    if (ch === BACKSLASH) i++;
    else if (ch === a || ch === b || ch === c) return i;
  }
  return end;
}

function unescape(s: string, from: number, to: number): string {
  const raw = s.slice(from, to);
  if (!raw.includes('\\')) return raw;
  return raw.replace(/\\([ ,=\\])/g, '$1');
}

function parseLine(s: string, start: number, end: number, rows: Row[], ctx: LineContext): void {
  if (s.charCodeAt(start) === 35) return; // # comment
  const keyEnd = scan(s, start, end, SPACE, SPACE);
  if (keyEnd === end) fail(`missing fields after ${quote(s.slice(start, end))}`);
  const mEnd = scan(s, start, keyEnd, COMMA, COMMA);
  const measurement = unescape(s, start, mEnd);
  const tags: Label[] = [];
  let hasDb = false;
  for (let p = mEnd + 1; p < keyEnd; ) {
    const tEnd = scan(s, p, keyEnd, COMMA, COMMA);
    const eq = scan(s, p, tEnd, EQ, EQ);
    if (eq === tEnd) fail(`missing "=" in tag ${quote(s.slice(p, tEnd))}`);
    const name = unescape(s, p, eq);
    const value = unescape(s, eq + 1, tEnd);
    if (name === 'db') hasDb = true;
    if (name !== '' && value !== '') tags.push({ name, value });
    p = tEnd + 1;
  }
  if (!hasDb && ctx.db !== '') tags.push({ name: 'db', value: ctx.db });
  let p = keyEnd;
  while (p < end && s.charCodeAt(p) === SPACE) p++;
  const fields: { key: string; value: number | undefined }[] = [];
  p = parseFields(s, p, end, fields);
  while (p < end && s.charCodeAt(p) === SPACE) p++;
  let tEnd = end;
  while (tEnd > p && s.charCodeAt(tEnd - 1) === SPACE) tEnd--;
  const timestamp = p < tEnd ? toMillis(s, p, tEnd, ctx) : ctx.now;
  const single = fields.length === 1 && measurement !== '' && ctx.skipSingleField;
  for (const f of fields) {
    if (f.value === undefined) continue;
    const name = ctx.skipMeasurement || measurement === '' ? f.key : single ? measurement : measurement + ctx.sep + f.key;
    const labels = canonicalLabels([...tags, { name: METRIC_NAME_LABEL, value: name }], 'keepLast');
    rows.push({ labels, timestamp, value: f.value });
  }
}

// parseFields reads `k=v,k=v` starting at p; returns the index after the field set.
function parseFields(s: string, p: number, end: number, out: { key: string; value: number | undefined }[]): number {
  for (;;) {
    const eq = scan(s, p, end, EQ, SPACE, COMMA);
    if (eq >= end || s.charCodeAt(eq) !== EQ) fail(`missing "=" in field ${quote(s.slice(p, eq))}`);
    const key = unescape(s, p, eq);
    if (key === '') fail('empty field key');
    let v = eq + 1;
    let value: number | undefined;
    if (v < end && s.charCodeAt(v) === QUOTE) {
      v = closingQuote(s, v + 1, end, key) + 1;
      value = undefined;
    } else {
      const vEnd = scan(s, v, end, COMMA, SPACE);
      value = fieldValue(s, v, vEnd, key);
      v = vEnd;
    }
    out.push({ key, value });
    if (v >= end || s.charCodeAt(v) === SPACE) return v;
    if (s.charCodeAt(v) !== COMMA) fail(`unexpected text after field ${quote(key)}: ${quote(s.slice(v, end))}`);
    p = v + 1;
  }
}

function closingQuote(s: string, from: number, end: number, key: string): number {
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return fail(`missing closing quote in string field ${quote(key)}`);
}

const BOOLS: Record<string, number> = { t: 1, T: 1, true: 1, True: 1, TRUE: 1, f: 0, F: 0, false: 0, False: 0, FALSE: 0 };

function fieldValue(s: string, from: number, to: number, key: string): number {
  if (from === to) fail(`empty value for field ${quote(key)}`);
  const last = s.charCodeAt(to - 1);
  if (last === 105 || last === 117) {
    // 105 'i': signed integer, 117 'u': unsigned integer
    const digits = s.slice(from, to - 1);
    if (!(last === 105 ? /^-?\d+$/ : /^\d+$/).test(digits)) fail(`cannot parse integer field ${quote(key)} from ${quote(s.slice(from, to))}`);
    return Number(digits);
  }
  const b = BOOLS[s.slice(from, to)];
  if (b !== undefined) return b;
  try {
    return parseFloatRange(s, from, to);
  } catch (e) {
    if (!isLineFailure(e)) throw e;
    return fail(`cannot parse value of field ${quote(key)} from ${quote(s.slice(from, to))}`);
  }
}

// toMillis converts an integer timestamp in ctx.precision to ms exactly (string arithmetic for the
// sub-millisecond units, so 19-digit nanosecond values lose nothing to float rounding).
function toMillis(s: string, from: number, to: number, ctx: LineContext): number {
  const text = s.slice(from, to);
  if (!/^-?\d+$/.test(text)) fail(`cannot parse timestamp ${quote(text)}`);
  const neg = text.charCodeAt(0) === 45;
  const digits = neg ? text.slice(1) : text;
  let ms: number;
  switch (ctx.precision) {
    case 'ns':
      ms = digits.length > 6 ? Number(digits.slice(0, -6)) : 0;
      break;
    case 'us':
      ms = digits.length > 3 ? Number(digits.slice(0, -3)) : 0;
      break;
    case 'ms':
      ms = Number(digits);
      break;
    case 's':
      ms = Number(digits) * 1000;
      break;
    case 'm':
      ms = Number(digits) * 60_000;
      break;
    case 'h':
      ms = Number(digits) * 3_600_000;
      break;
  }
  if (!Number.isSafeInteger(ms)) fail(`timestamp ${quote(text)} is out of range`);
  if (/^0+$/.test(digits)) return ctx.now;
  return neg && ms !== 0 ? -ms : ms;
}
