import { ByteWriter } from '../../lib/bytes/index.ts';
import * as common from '../../lib/protoparser/common/index.ts';
import type { SampleResult, SeriesResult } from '../../lib/query/index.ts';
import type { Labels } from '../../lib/storageapi/index.ts';
import { takeAnswerBuffer } from './answer-buffer.ts';
import { TimestampPrefixes } from './timestamp-prefixes.ts';

// Hand-built JSON for query results: a range result holds millions of points, and building one
// object per point only to stringify it would dominate query latency.
//
// Numbers of a matrix are never turned into strings one by one (common.DoubleDigits says why):
// they are spelled into the answer's bytes (common.PlainDecimals).

/** formatSampleValue spells a float the way Prometheus' JSON does: "NaN", "+Inf", "-Inf", else shortest form. */
export function formatSampleValue(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v);
}

/** formatTimestampSeconds prints milliseconds as the float seconds Prometheus' JSON uses. */
export function formatTimestampSeconds(ms: number): string {
  return String(ms / 1000);
}

/** labelsJson renders a label set as a JSON object. */
export function labelsJson(labels: Labels): string {
  let s = '{';
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    s += `${i === 0 ? '' : ','}${JSON.stringify(l.name)}:${JSON.stringify(l.value)}`;
  }
  return `${s}}`;
}

const COMMA = 44;
const COLON = 58;
const QUOTE = 34;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const BACKSLASH = 92;
const ZERO = 48;

/**
 * writeJsonString appends s as JSON.stringify spells it, in UTF-8. Label names and values are
 * almost always printable ASCII, copied here char by char; anything else (a char to escape, or
 * beyond ASCII) takes JSON.stringify's spelling. Answers listing thousands of label sets spent
 * more in building, flattening and encoding one string of them than in the search (api:series
 * at 100k series: 3.4 of 5.5 CPU-s in labelsJson and seriesListJson, 1.3 more writing the string).
 */
export function writeJsonString(w: ByteWriter, s: string): void {
  const n = s.length;
  w.ensure(n + 2);
  const buf = w.buf;
  let at = w.pos;
  buf[at++] = QUOTE;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH || c >= 0x80) {
      const json = JSON.stringify(s);
      w.ensure(3 * json.length);
      w.pos += w.buf.write(json, w.pos, 'utf8');
      return;
    }
    buf[at++] = c;
  }
  buf[at++] = QUOTE;
  w.pos = at;
}

/** writeLabelsJson appends labelsJson(labels) to w, in UTF-8. */
export function writeLabelsJson(w: ByteWriter, labels: Labels): void {
  w.ensure(1);
  w.buf[w.pos++] = OPEN_BRACE;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (i > 0) {
      w.ensure(1);
      w.buf[w.pos++] = COMMA;
    }
    writeJsonString(w, l.name);
    w.ensure(1);
    w.buf[w.pos++] = COLON;
    writeJsonString(w, l.value);
  }
  w.ensure(1);
  w.buf[w.pos++] = CLOSE_BRACE;
}

// Names a JS object would not keep in insertion order (array indices) or would not keep at all.
const OBJECT_REORDERED_NAME = /^\d+$|^__proto__$/;

// A label set of the bench's workloads renders to ~110 bytes.
const LABELS_JSON_GUESS = 128;

/**
 * seriesListJson renders `{"status":"success","data":[<label set>,…]}` (plus `"isPartial"` when
 * given) exactly as JSON.stringify renders the same envelope with each label set as an object
 * built name by name (in UTF-8), without building the objects; undefined when a set holds a
 * name an object would reorder or drop (the caller then builds the objects).
 */
export function seriesListJson(sets: readonly Labels[], isPartial?: boolean): Buffer | undefined {
  // Indexed loops: until V8 optimizes this function (the bench's serial pass calls it 6 times),
  // a for-of allocates an iterator result per label, ~16 KB per answer of 100 label sets.
  for (let k = 0; k < sets.length; k++) {
    const labels = sets[k]!;
    for (let i = 0; i < labels.length; i++) if (OBJECT_REORDERED_NAME.test(labels[i]!.name)) return undefined;
  }
  const w = new ByteWriter(64 + sets.length * LABELS_JSON_GUESS);
  w.writeLatin1('{"status":"success","data":[');
  for (let k = 0; k < sets.length; k++) {
    if (k > 0) {
      w.ensure(1);
      w.buf[w.pos++] = COMMA;
    }
    writeLabelsJson(w, sets[k]!);
  }
  w.writeLatin1(`]${isPartial === undefined ? '' : `,"isPartial":${isPartial}`}}`);
  return w.bytes();
}

/**
 * vectorJson renders a whole response whose data is an instant vector — head, the
 * {"metric","value"} objects joined by commas, tail — in UTF-8 (see writeJsonString for why
 * not as one string).
 */
export function vectorJson(head: string, vector: readonly SampleResult[], tail: string): Buffer {
  const w = new ByteWriter(head.length + tail.length + vector.length * (LABELS_JSON_GUESS + 48));
  w.writeLatin1(head);
  for (let k = 0; k < vector.length; k++) {
    const s = vector[k]!;
    w.writeLatin1(k === 0 ? '{"metric":' : ',{"metric":');
    writeLabelsJson(w, s.labels);
    w.writeLatin1(`,"value":${pointJson(s.timestamp, s.value)}}`);
  }
  w.writeLatin1(tail);
  return w.bytes();
}

/** pointJson renders one [seconds, "value"] pair. */
export function pointJson(ms: number, v: number): string {
  return `[${formatTimestampSeconds(ms)},"${formatSampleValue(v)}"]`;
}

// Longest spelling of a finite value: JSON.stringify's ("-2.2250738585072014e-308", 24) or
// PlainDecimals' ("-0.00000" and 17 digits); "NaN", "+Inf" and "-Inf" are shorter.
const MAX_VALUE_CHARS = Math.max(24, common.MAX_PLAIN_DECIMAL_CHARS);
// `,{"metric":` + `,"values":[` + `]}` around a series' labels and points.
const SERIES_FRAME_BYTES = 24;
const NAN = Buffer.from('NaN');
const POS_INF = Buffer.from('+Inf');
const NEG_INF = Buffer.from('-Inf');

/**
 * matrixJson renders a whole response whose data is a matrix — head, the JSON array of
 * {"metric","values"}, tail — into one buffer from takeAnswerBuffer (the caller hands it back
 * with answerSent once the response is written). The buffer is sized for the longest possible
 * rendering up front, so it is never copied; the pages past the rendered length are never
 * written (a fresh allocation is its own mapping, so they take no resident memory). The series of a
 * range query share their timestamps, so each timestamp's `[seconds,"` prefix is formatted once
 * per response (TimestampPrefixes).
 */
export function matrixJson(head: string, matrix: readonly SeriesResult[], tail: string): Buffer {
  const prefixes = new TimestampPrefixes(matrix, formatTimestampSeconds);
  const metrics: string[] = [];
  let bound = Buffer.byteLength(head) + Buffer.byteLength(tail) + 2;
  for (const s of matrix) {
    const metric = labelsJson(s.labels);
    metrics.push(metric);
    bound += Buffer.byteLength(metric) + SERIES_FRAME_BYTES + s.timestamps.length * (prefixes.maxLength + MAX_VALUE_CHARS + 3);
  }
  const out = takeAnswerBuffer(bound);
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  let at = out.write(head, 0);
  out[at++] = 91; // [
  for (let k = 0; k < matrix.length; k++) {
    if (k > 0) out[at++] = COMMA;
    at += out.write(`{"metric":${metrics[k]!},"values":[`, at);
    at = writePoints(out, view, at, matrix[k]!, prefixes);
    out[at++] = CLOSE_BRACKET;
    out[at++] = 125; // }
  }
  out[at++] = CLOSE_BRACKET;
  at += out.write(tail, at);
  return out.subarray(0, at);
}

// writePoints writes `[t,"v"],…` of one series at out[at] (view: out as a DataView) and returns
// the new end. Values are read from the series' array by index, never passed on as numbers (a
// double passed to a call V8 does not inline is boxed: a heap number per point). Values are
// spelled by PlainDecimals until one it declines (outside 1e-6..1e15), then by
// DoubleDigits for the rest of the series.
function writePoints(out: Buffer, view: DataView, at: number, s: SeriesResult, prefixes: TimestampPrefixes): number {
  const ts = s.timestamps;
  const vs = s.values;
  const { words, starts } = prefixes;
  decimals.reset();
  let slow = false;
  let k = 0;
  for (let i = 0; i < ts.length; i++) {
    if (i > 0) out[at++] = COMMA;
    k = prefixes.find(k, ts[i]!);
    // The prefix is copied in 4-byte words (a third of the byte loop's operations): the last word
    // may carry up to 3 bytes past it, which the value written next covers.
    const from = starts[k]!;
    const len = starts[k + 1]! - from;
    for (let j = 0; j < len; j += 4) view.setUint32(at + j, words.getUint32(from + j));
    at += len;
    k++;
    const v = vs[i]!;
    let end: number;
    if (slow) end = digits.copyNext(out, at);
    else if (v === 0) {
      out[at] = ZERO; // String(-0) is "0" too
      end = at + 1;
    } else {
      end = decimals.write(out, at, vs, i);
      if (end < 0 && Number.isFinite(v)) {
        slow = true;
        digits.reset(vs, i);
        end = digits.copyNext(out, at);
      }
    }
    if (end >= 0) at = end;
    else {
      const word = v > 0 ? POS_INF : v < 0 ? NEG_INF : NAN;
      for (let j = 0; j < word.length; j++) out[at++] = word[j]!;
    }
    out[at++] = QUOTE;
    out[at++] = CLOSE_BRACKET;
  }
  return at;
}

const decimals = new common.PlainDecimals();
const digits = new common.DoubleDigits();
