// JSON lines export (/api/v1/export): one line per series, or several when maxRowsPerLine cuts a
// long series, each `{"metric":{…},"values":[…],"timestamps":[…]}\n`. Labels keep their order
// (pass sorted Labels; __name__ sorts where it falls). Values use the shortest round-trip decimal,
// so every finite float64 (-0, subnormals, the largest) reads back bit for bit; JSON has no NaN or
// infinities, so they are written as the strings "NaN", "Inf", "-Inf", which the importer (and
// VictoriaMetrics') reads back. A Prometheus staleness marker is written `null`, as
// VictoriaMetrics exports it, and the importer reads null back as the marker; any other NaN
// becomes "NaN", read back as the default NaN (its payload bits are not kept).

import { DoubleDigits } from '../common/double-digits.ts';
import { MAX_PLAIN_DECIMAL_CHARS, PlainDecimals } from '../common/plain-decimal.ts';
import { isStaleNaN } from '../../storageapi/index.ts';
import type { Labels } from '../common/row.ts';

/** writeMetric renders the `"metric":{…}` object of a label set. */
export function writeMetric(labels: Labels): string {
  let out = '{';
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (i > 0) out += ',';
    out += `${JSON.stringify(l.name)}:${JSON.stringify(l.value)}`;
  }
  return `${out}}`;
}

/** jsonValue renders one value as JSON text (see the file comment). */
export function jsonValue(v: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (Number.isFinite(v)) return String(v);
  if (v !== v) return isStaleNaN(v) ? 'null' : '"NaN"';
  return v > 0 ? '"Inf"' : '"-Inf"';
}

/**
 * writeSeries renders one series as JSON lines. timestamps (integer ms) and values are parallel;
 * maxRowsPerLine > 0 splits the series into lines of at most that many samples (0 = one line).
 * Returns "" for a series without samples.
 */
export function writeSeries(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>, maxRowsPerLine = 0): string {
  return render(labels, timestamps, values, maxRowsPerLine) ? out.done() : '';
}

/**
 * writeSeriesView is writeSeries as UTF-8 bytes: a view of the writer's own buffer, valid only
 * until the next write of any series. Streaming exports copy them straight into the chunk they
 * are filling (texts as strings would grow V8's heap: they outlive young collections while a
 * chunk fills).
 */
export function writeSeriesView(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>, maxRowsPerLine = 0): Uint8Array {
  return render(labels, timestamps, values, maxRowsPerLine) ? out.view() : EMPTY;
}

// render writes the lines of one series into `out`; false when the series has no samples.
function render(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>, maxRowsPerLine: number): boolean {
  const n = timestamps.length;
  if (n !== values.length) throw new RangeError(`series has ${n} timestamps but ${values.length} values`);
  if (n === 0) return false;
  const step = maxRowsPerLine > 0 ? Math.floor(maxRowsPerLine) : n;
  const head = Buffer.from(`{"metric":${writeMetric(labels)},"values":[`);
  const lines = Math.ceil(n / step);
  const w = out.start(lines * (head.length + 32) + n * 2 * MAX_NUMBER_CHARS);
  // Series of whole numbers (counters) take the integer writer; others take PlainDecimals
  // (plain-decimal.ts) until a value it cannot spell, then DoubleDigits (JSON.stringify of the
  // rest of the series) for the rest: either way no String(v) garbage.
  const ints = allSafeIntegers(values);
  let slow = false;
  decimals.reset();
  for (let from = 0; from < n; from += step) {
    const to = Math.min(n, from + step);
    w.bytes(head);
    for (let i = from; i < to; i++) {
      if (i > from) w.byte(COMMA);
      const v = values[i]!;
      if (ints) w.int(v);
      else if (!slow) {
        if (v === 0 || !Number.isFinite(v)) w.ascii(jsonValue(v));
        else if (!w.decimal(values, i)) {
          slow = true;
          digits.reset(values, i);
          w.digits(digits);
        }
      } else {
        if (v === 0 && Object.is(v, -0)) w.byte(MINUS); // JSON.stringify spells -0 as 0
        if (!w.digits(digits)) w.ascii(jsonValue(v));
      }
    }
    w.ascii('],"timestamps":[');
    w.timestamps(timestamps, from, to);
    w.ascii(']}\n');
  }
  return true;
}

function allSafeIntegers(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isSafeInteger(v) || (v === 0 && Object.is(v, -0))) return false;
  }
  return true;
}

const COMMA = 44;
const MINUS = 45;
const EMPTY = new Uint8Array(0);
const digits = new DoubleDigits();
const decimals = new PlainDecimals();
// Runs of timestamps up to this long are remembered for the next series (see LineWriter).
const MAX_REMEMBERED_RUN = 1 << 16;
// The longest spelling of a number plus a comma: String()'s ("-2.2250738585072014e-308", 24) or
// PlainDecimals' ("-0.00000" and 17 digits).
const MAX_NUMBER_CHARS = Math.max(24, MAX_PLAIN_DECIMAL_CHARS) + 1;

/**
 * LineWriter builds a series' text in one reused byte buffer: integers become digits without an
 * intermediate string, and the result is one flat string instead of thousands of small ones
 * joined. start() reserves room for everything the caller will write. One shared instance; each
 * writeSeries or writeSeriesView call uses it from start() to done() or view().
 */
class LineWriter {
  #buf = Buffer.allocUnsafe(1 << 16);
  #len = 0;
  // The last run of timestamps written and its text: series scraped together share their
  // timestamps, and copying the text is far cheaper than spelling 13-digit numbers again.
  #runTs = new Float64Array(0);
  #runLen = -1;
  #runText = Buffer.allocUnsafe(0);
  #runTextLen = 0;

  start(room: number): this {
    if (room > this.#buf.length) this.#buf = Buffer.allocUnsafe(Math.max(room, 2 * this.#buf.length));
    this.#len = 0;
    return this;
  }

  byte(c: number): void {
    this.#buf[this.#len++] = c;
  }

  bytes(b: Uint8Array): void {
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }

  /** ascii appends a short ASCII text (a number's rendering). */
  ascii(s: string): void {
    const b = this.#buf;
    let at = this.#len;
    for (let i = 0; i < s.length; i++) b[at++] = s.charCodeAt(i);
    this.#len = at;
  }

  /** digits appends the next value of d; false (nothing appended) for a non-finite value. */
  digits(d: DoubleDigits): boolean {
    const end = d.copyNext(this.#buf, this.#len);
    if (end < 0) return false;
    this.#len = end;
    return true;
  }

  /** decimal appends values[i] when PlainDecimals can spell it; false (nothing appended) otherwise. */
  decimal(values: ArrayLike<number>, i: number): boolean {
    const end = decimals.write(this.#buf, this.#len, values, i);
    if (end < 0) return false;
    this.#len = end;
    return true;
  }

  /** timestamps appends ts[from..to) as comma-separated integers (String() of other numbers). */
  timestamps(ts: ArrayLike<number>, from: number, to: number): void {
    const n = to - from;
    if (n === this.#runLen && sameRun(this.#runTs, ts, from, n)) {
      this.#buf.set(this.#runText.subarray(0, this.#runTextLen), this.#len);
      this.#len += this.#runTextLen;
      return;
    }
    const start = this.#len;
    for (let i = from; i < to; i++) {
      if (i > from) this.byte(COMMA);
      const t = ts[i]!;
      if (Number.isSafeInteger(t)) this.int(t);
      else this.ascii(String(t));
    }
    if (n > MAX_REMEMBERED_RUN) return;
    if (this.#runTs.length < n) this.#runTs = new Float64Array(Math.max(n, 2 * this.#runTs.length));
    for (let i = 0; i < n; i++) this.#runTs[i] = ts[from + i]!;
    const len = this.#len - start;
    if (this.#runText.length < len) this.#runText = Buffer.allocUnsafe(Math.max(len, 2 * this.#runText.length));
    this.#buf.copy(this.#runText, 0, start, this.#len);
    this.#runLen = n;
    this.#runTextLen = len;
  }

  /** int appends a safe integer's decimal digits (what String() gives for it). */
  int(v: number): void {
    if (v < 0) {
      this.#buf[this.#len++] = MINUS;
      v = -v;
    }
    if (v < 1e8) {
      this.#small(v, 0);
      return;
    }
    // Split so both halves are small integers: % and / on larger numbers are much slower.
    const hi = Math.floor(v / 1e8);
    this.#small(hi, 0);
    this.#small(v - hi * 1e8, 8);
  }

  // small appends 0 <= v < 1e8 with at least `pad` digits (leading zeros).
  #small(v: number, pad: number): void {
    const b = this.#buf;
    let digits = 1;
    for (let x = v; x >= 10; x = (x / 10) | 0) digits++;
    if (digits < pad) digits = pad;
    let at = this.#len + digits;
    this.#len = at;
    for (let i = 0; i < digits; i++) {
      const q = (v / 10) | 0;
      b[--at] = 48 + v - q * 10;
      v = q;
    }
  }

  done(): string {
    return this.#buf.toString('utf8', 0, this.#len);
  }

  /** view returns what was written, as a view valid until the next start(). */
  view(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }

}

// sameRun: run[0..n) equals ts[from..from+n).
function sameRun(run: Float64Array, ts: ArrayLike<number>, from: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (run[i] !== ts[from + i]) return false;
  return true;
}

const out = new LineWriter();
