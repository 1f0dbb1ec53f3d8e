import * as common from '../../lib/protoparser/common/index.ts';
import type { SeriesResult } from '../../lib/query/index.ts';
import type { Labels } from '../../lib/storageapi/index.ts';
import { TimestampPrefixes } from './timestamp-prefixes.ts';

// Hand-built JSON for query results: a range result holds millions of points, and building one
// object per point only to stringify it would dominate query latency.
//
// Numbers of a matrix are never turned into strings one by one (common.DoubleDigits says why).

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

// Names a JS object would not keep in insertion order (array indices) or would not keep at all.
const OBJECT_REORDERED_NAME = /^\d+$|^__proto__$/;

/**
 * seriesListJson renders `{"status":"success","data":[<label set>,…]}` (plus `"isPartial"` when
 * given) exactly as JSON.stringify renders the same envelope with each label set as an object
 * built name by name, without building the objects; undefined when a set holds a name an object
 * would reorder or drop (the caller then builds the objects).
 */
export function seriesListJson(sets: readonly Labels[], isPartial?: boolean): string | undefined {
  const parts: string[] = [];
  for (const labels of sets) {
    for (const l of labels) if (OBJECT_REORDERED_NAME.test(l.name)) return undefined;
    parts.push(labelsJson(labels));
  }
  return `{"status":"success","data":[${parts.join(',')}]${isPartial === undefined ? '' : `,"isPartial":${isPartial}`}}`;
}

/** pointJson renders one [seconds, "value"] pair. */
export function pointJson(ms: number, v: number): string {
  return `[${formatTimestampSeconds(ms)},"${formatSampleValue(v)}"]`;
}

// Longest JSON.stringify of a finite double ("-2.2250738585072014e-308"); "NaN", "+Inf" and
// "-Inf" are shorter.
const MAX_VALUE_CHARS = 24;
// `,{"metric":` + `,"values":[` + `]}` around a series' labels and points.
const SERIES_FRAME_BYTES = 24;
const COMMA = 44;
const QUOTE = 34;
const CLOSE_BRACKET = 93;
const NAN = Buffer.from('NaN');
const POS_INF = Buffer.from('+Inf');
const NEG_INF = Buffer.from('-Inf');

/**
 * matrixJson renders a whole response whose data is a matrix — head, the JSON array of
 * {"metric","values"}, tail — into one buffer. The buffer is sized for the longest possible
 * rendering up front, so it is never copied; the pages past the rendered length are never
 * written (the allocation is a fresh mapping, so they take no resident memory). The series of a
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
  const out = Buffer.allocUnsafeSlow(bound);
  let at = out.write(head, 0);
  out[at++] = 91; // [
  for (let k = 0; k < matrix.length; k++) {
    if (k > 0) out[at++] = COMMA;
    at += out.write(`{"metric":${metrics[k]!},"values":[`, at);
    at = writePoints(out, at, matrix[k]!, prefixes);
    out[at++] = CLOSE_BRACKET;
    out[at++] = 125; // }
  }
  out[at++] = CLOSE_BRACKET;
  at += out.write(tail, at);
  return out.subarray(0, at);
}

// writePoints writes `[t,"v"],…` of one series at out[at] and returns the new end.
function writePoints(out: Buffer, at: number, s: SeriesResult, prefixes: TimestampPrefixes): number {
  const ts = s.timestamps;
  const vs = s.values;
  const { bytes, starts } = prefixes;
  digits.reset(vs);
  let k = 0;
  for (let i = 0; i < ts.length; i++) {
    if (i > 0) out[at++] = COMMA;
    k = prefixes.find(k, ts[i]!);
    for (let j = starts[k]!, end = starts[k + 1]!; j < end; j++) out[at++] = bytes[j]!;
    k++;
    const end = digits.copyNext(out, at);
    if (end >= 0) at = end;
    else {
      const v = vs[i]!;
      const word = v > 0 ? POS_INF : v < 0 ? NEG_INF : NAN;
      for (let j = 0; j < word.length; j++) out[at++] = word[j]!;
    }
    out[at++] = QUOTE;
    out[at++] = CLOSE_BRACKET;
  }
  return at;
}

const digits = new common.DoubleDigits();
