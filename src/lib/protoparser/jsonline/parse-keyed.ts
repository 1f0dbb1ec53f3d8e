// The keyed JSON-lines parser: parse() with the samples of a line going into KeyedColumns under
// one key instead of a Row each. Rows held in a batch outlive young collections and grow the old
// generation; typed columns do not. Lines are read by the row parser's own functions, so rows and
// error messages are the same by construction.

import type { KeyedColumns } from '../common/keyed-columns.ts';
import type { ErrorSummary } from '../common/parse-error.ts';
import { parseLines } from '../common/parse-result.ts';
import type { Labels } from '../common/row.ts';
import type { SeriesKeyDictionary } from '../common/series-keys.ts';
import { readSeriesLine, sampleTimestamp, sampleValue } from './parse.ts';

/** JsonLineKeyedOptions configure parseJsonLinesKeyed. */
export interface JsonLineKeyedOptions {
  /** firstLine is the number of the block's first line (default 1: the body's start). */
  readonly firstLine?: number;
  /** keys numbers the series by their canonical labels. */
  readonly keys: SeriesKeyDictionary;
  /** out receives the samples; its table must be keys.table. */
  readonly out: KeyedColumns;
}

// The checked samples of one line until the whole line is known good (a line is recorded whole
// or not at all). Parsing is synchronous, so one pair serves every call; a pair grown past
// KEEP_SAMPLES by a long line is dropped after the call.
const KEEP_SAMPLES = 1 << 16;
let scratchTs = new Float64Array(4096);
let scratchVs = new Float64Array(4096);

/**
 * parseJsonLinesKeyed is parse() for a block of whole lines given as UTF-8 bytes, appending rows
 * to opts.out as key numbers instead of Rows: the same rows, errors and line count as
 * parse(decoded text). Rows made from the key table carry no rawKey.
 */
export function parseJsonLinesKeyed(block: Buffer, opts: JsonLineKeyedOptions): { readonly errors: ErrorSummary; readonly lines: number } {
  const { keys, out } = opts;
  if (out.table !== keys.table) throw new Error('cannot parse into a batch of another key table: clear the batch with the dictionary\'s current table first');
  const res = parseLines(block.toString('utf8'), opts.firstLine ?? 1, (s, start, end) => {
    const line = readSeriesLine(s, start, end);
    if (line === undefined) return;
    const { timestamps, values } = line;
    const n = values.length;
    if (scratchTs.length < n) {
      scratchTs = new Float64Array(n);
      scratchVs = new Float64Array(n);
    }
    const ts = scratchTs;
    const vs = scratchVs;
    for (let j = 0; j < n; j++) {
      ts[j] = sampleTimestamp(timestamps[j], j);
      vs[j] = sampleValue(values[j], j);
    }
    const k = keyOf(keys, line.labels);
    for (let j = 0; j < n; j++) out.push(k, ts[j]!, vs[j]!);
  });
  if (scratchTs.length > KEEP_SAMPLES) {
    scratchTs = new Float64Array(4096);
    scratchVs = new Float64Array(4096);
  }
  return { errors: res.errors, lines: res.lines };
}

// keyOf returns the key of canonical labels, adding it when new (with no rawKey for rows: the key
// text is not a format's own spelling of the series).
function keyOf(keys: SeriesKeyDictionary, labels: Labels): number {
  const text = JSON.stringify(labels);
  const k = keys.get(text);
  return k >= 0 ? k : keys.add(text, labels, '');
}
