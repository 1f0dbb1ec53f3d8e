// JSON lines export (/api/v1/export): one line per series, or several when maxRowsPerLine cuts a
// long series, each `{"metric":{…},"values":[…],"timestamps":[…]}\n`. Labels keep their order
// (pass sorted Labels; __name__ sorts where it falls). Values use the shortest round-trip decimal,
// so every finite float64 (-0, subnormals, the largest) reads back bit for bit; JSON has no NaN or
// infinities, so they are written as the strings "NaN", "Inf", "-Inf", which the importer (and
// VictoriaMetrics') reads back. A Prometheus staleness marker is written `null`, as
// VictoriaMetrics exports it, and the importer reads null back as the marker; any other NaN
// becomes "NaN", read back as the default NaN (its payload bits are not kept).

import { DoubleDigits } from '../common/double-digits.ts';
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
 * writeSeriesBytes is writeSeries as UTF-8 bytes (a buffer of its own). Exports use it: a long
 * stream of series texts as strings grows V8's heap (they outlive young collections while a chunk
 * fills), where buffers go back to the allocator at the next young collection.
 */
export function writeSeriesBytes(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>, maxRowsPerLine = 0): Buffer {
  return render(labels, timestamps, values, maxRowsPerLine) ? out.doneBytes() : Buffer.alloc(0);
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
  // Values are spelled by DoubleDigits (no String(v) garbage); series of whole numbers
  // (counters) keep the cheaper digit writer.
  const ints = allSafeIntegers(values);
  if (!ints) digits.reset(values);
  for (let from = 0; from < n; from += step) {
    const to = Math.min(n, from + step);
    w.bytes(head);
    for (let i = from; i < to; i++) {
      if (i > from) w.byte(COMMA);
      const v = values[i]!;
      if (ints) w.int(v);
      else {
        if (v === 0 && Object.is(v, -0)) w.byte(MINUS); // JSON.stringify spells -0 as 0
        if (!w.digits(digits)) w.ascii(jsonValue(v));
      }
    }
    w.ascii('],"timestamps":[');
    for (let i = from; i < to; i++) {
      if (i > from) w.byte(COMMA);
      const t = timestamps[i]!;
      if (Number.isSafeInteger(t)) w.int(t);
      else w.ascii(String(t));
    }
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
const digits = new DoubleDigits();
// The longest String() of a number ("-2.2250738585072014e-308") plus a comma.
const MAX_NUMBER_CHARS = 26;

/**
 * LineWriter builds a series' text in one reused byte buffer: integers become digits without an
 * intermediate string, and the result is one flat string instead of thousands of small ones
 * joined. start() reserves room for everything the caller will write. One shared instance; each
 * writeSeries call uses it from start() to done().
 */
class LineWriter {
  #buf = Buffer.allocUnsafe(1 << 16);
  #len = 0;

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

  /** doneBytes returns a copy of what was written. */
  doneBytes(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#len));
  }
}

const out = new LineWriter();
