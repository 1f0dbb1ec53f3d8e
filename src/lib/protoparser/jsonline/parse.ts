// JSON lines import (/api/v1/import): one series per line,
//   {"metric":{"__name__":"up","job":"a"},"values":[1,0.5,null,"NaN"],"timestamps":[1700000000000,…]}
// values are numbers, null (a Prometheus staleness marker: what VictoriaMetrics, and Strata's own
// export, write for one), or strings holding a number or a special value ("NaN", "Inf", "+Inf",
// "-Inf", "Infinity", any letter case). Older VictoriaMetrics exports write the special values bare
// (`[+Inf,-Inf,NaN]`, not JSON): such lines are read too (bare-specials.ts). Timestamps are integer
// ms; both arrays must be non-empty and of equal length. Label values that are numbers or booleans
// are turned into strings; null and empty values are dropped. A bad line is skipped and counted.

import { STALE_NAN } from '../../storageapi/index.ts';
import { parseFloatText } from '../common/float.ts';
import { fail, isLineFailure, quote } from '../common/line-failure.ts';
import { jsonType } from '../common/json.ts';
import { canonicalLabels, type Label, type Row } from '../common/row.ts';
import { parseLines, type ParseResult } from '../common/parse-result.ts';
import { quoteBareSpecials } from './bare-specials.ts';

/** JsonLineParseOptions configure parse. */
export interface JsonLineParseOptions {
  readonly firstLine?: number;
}

/** parse parses JSON lines; bad lines are counted and skipped. */
export function parse(text: string, opts: JsonLineParseOptions = {}): ParseResult {
  return parseLines(text, opts.firstLine ?? 1, parseLine);
}

function parseLine(s: string, start: number, end: number, rows: Row[]): void {
  const line = readSeriesLine(s, start, end);
  if (line === undefined) return;
  const { labels, timestamps, values } = line;
  for (let k = 0; k < values.length; k++) {
    rows.push({ labels, timestamp: sampleTimestamp(timestamps[k], k), value: sampleValue(values[k], k) });
  }
}

/** SeriesLine is a line read by readSeriesLine: its labels and its two arrays, of equal, non-zero length. */
export interface SeriesLine {
  readonly labels: Label[];
  readonly timestamps: readonly unknown[];
  readonly values: readonly unknown[];
}

/**
 * readSeriesLine parses the line s[start, end) (without its line end) as JSON and checks its shape:
 * undefined for a blank line, else its labels and sample arrays, whose entries sampleTimestamp and
 * sampleValue read. Throws a LineFailure saying what is wrong.
 */
export function readSeriesLine(s: string, start: number, end: number): SeriesLine | undefined {
  let i = start;
  while (i < end && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  if (i === end) return undefined;
  const doc = parseJsonLine(s.slice(start, end));
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail(`line must be a JSON object; got ${jsonType(doc)}`);
  const o = doc as Record<string, unknown>;
  const labels = metricLabels(o.metric);
  const values = o.values;
  const timestamps = o.timestamps;
  if (!Array.isArray(values) || values.length === 0) fail('missing "values" array');
  if (!Array.isArray(timestamps) || timestamps.length === 0) fail('missing "timestamps" array');
  if (values.length !== timestamps.length) fail(`"timestamps" has ${timestamps.length} entries but "values" has ${values.length}`);
  return { labels, timestamps, values };
}

// parseJsonLine parses a line as JSON; a line JSON.parse refuses gets a second chance with bare
// special values quoted (older VictoriaMetrics exports). The error reported is the first one.
function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (err) {
    const quoted = quoteBareSpecials(line);
    if (quoted !== undefined) {
      try {
        return JSON.parse(quoted);
      } catch {
        // fall through to the original error
      }
    }
    return fail(`cannot parse JSON: ${(err as Error).message}`);
  }
}

// metricLabels turns the "metric" value of a line into canonical labels, or throws a LineFailure
// saying why it cannot (not an object, a label value that is not a string, number or boolean, a
// duplicate or empty name, no labels left).
function metricLabels(m: unknown): Label[] {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) fail('missing "metric" object');
  const labels: Label[] = [];
  for (const [name, v] of Object.entries(m as Record<string, unknown>)) {
    if (v === null) continue;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') fail(`label ${quote(name)} must be a string; got ${jsonType(v)}`);
    labels.push({ name, value: String(v) });
  }
  const out = canonicalLabels(labels, 'reject');
  if (out.length === 0) fail('"metric" has no labels');
  return out;
}

/** sampleTimestamp reads entry k of a line's "timestamps" (integer ms), or throws a LineFailure. */
export function sampleTimestamp(t: unknown, k: number): number {
  if (typeof t !== 'number' || !Number.isSafeInteger(t)) fail(`timestamp at position ${k} must be an integer (ms); got ${quote(JSON.stringify(t) ?? '')}`);
  return t;
}

/**
 * sampleValue reads entry k of a line's "values" (a number, null for a staleness marker, or a
 * number string), or throws a LineFailure.
 */
export function sampleValue(v: unknown, k: number): number {
  if (typeof v === 'number') return v;
  if (v === null) return STALE_NAN;
  if (typeof v === 'string') {
    try {
      return parseFloatText(v);
    } catch (e) {
      if (!isLineFailure(e)) throw e;
    }
  }
  return fail(`cannot parse value at position ${k}: ${quote(JSON.stringify(v) ?? '')}`);
}
