// CSV import rows: fields separated by ",", RFC 4180 quoting ("a,b", "say ""hi""", and newlines
// inside quotes). Each record yields one row per non-empty metric column, all sharing the record's
// labels and timestamp (see format.ts for the column rules). Label fields are taken verbatim;
// value and time fields may be padded with blanks. A bad record is skipped and counted with the
// number of the line it starts on.

import { ErrorSummary } from '../common/parse-error.ts';
import { parseFloatText } from '../common/float.ts';
import { fail, isLineFailure, quote } from '../common/line-failure.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import type { ParseResult } from '../common/parse-result.ts';
import type { CsvImportFormat } from './format.ts';

/** CsvParseOptions configure parse. */
export interface CsvParseOptions {
  /** The parsed `format` arg. */
  readonly format: CsvImportFormat;
  /** Clock (ms) for records without a time column; called once per parse call. */
  readonly now: () => number;
  readonly firstLine?: number;
}

/** parse parses CSV records; bad records are counted and skipped. */
export function parse(text: string, opts: CsvParseOptions): ParseResult {
  const rows: Row[] = [];
  const errors = new ErrorSummary();
  const now = opts.now();
  let line = opts.firstLine ?? 1;
  let i = line === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length) {
    const { end, next, newlines } = recordEnd(text, i);
    const recordEndNoCr = end > i && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (recordEndNoCr > i) {
      const mark = rows.length;
      try {
        record(splitFields(text, i, recordEndNoCr), opts.format, now, rows);
      } catch (e) {
        if (!isLineFailure(e)) throw e;
        rows.length = mark;
        errors.add(e.reason, { line });
      }
    }
    line += newlines + 1;
    i = next;
  }
  return { rows, errors, lines: line - (opts.firstLine ?? 1) };
}

// recordEnd finds the "\n" that ends the record starting at i (outside quotes). Returns the end of
// the record, where the next one starts, and how many quoted newlines the record holds.
function recordEnd(s: string, i: number): { end: number; next: number; newlines: number } {
  let inQuote = false;
  let newlines = 0;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 34) inQuote = !inQuote;
    else if (c === 10) {
      if (!inQuote) return { end: j, next: j + 1, newlines };
      newlines++;
    }
  }
  return { end: s.length, next: s.length, newlines };
}

/** splitFields splits one CSV record into unquoted fields. Throws a LineFailure on broken quoting. */
export function splitFields(s: string, start: number, end: number): string[] {
  const out: string[] = [];
  let i = start;
  for (;;) {
    if (i < end && s.charCodeAt(i) === 34) {
      let v = '';
      let j = i + 1;
      for (;;) {
        const q = s.indexOf('"', j);
        if (q < 0 || q >= end) fail(`missing closing quote in field ${out.length + 1}`);
        v += s.slice(j, q);
        if (q + 1 < end && s.charCodeAt(q + 1) === 34) {
          v += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out.push(v);
      if (i < end && s.charCodeAt(i) !== 44) fail(`unexpected text after the closing quote of field ${out.length}: ${quote(s.slice(i, end))}`);
    } else {
      let j = s.indexOf(',', i);
      if (j < 0 || j > end) j = end;
      out.push(s.slice(i, j));
      i = j;
    }
    if (i >= end) return out;
    i++; // the comma
    if (i === end) {
      out.push('');
      return out;
    }
  }
}

function record(fields: string[], format: CsvImportFormat, now: number, rows: Row[]): void {
  const cols = format.columns;
  if (fields.length < cols.length) fail(`expected at least ${cols.length} columns; got ${fields.length}`);
  const labels: Label[] = [];
  const metrics: [string, number][] = [];
  let timestamp = now;
  let name = '';
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c];
    if (col === undefined) continue;
    const field = fields[c]!;
    if (col.kind === 'label') {
      if (col.name === METRIC_NAME_LABEL) name = field;
      else labels.push({ name: col.name, value: field });
    } else if (col.kind === 'time') {
      const t = field.trim();
      if (t === '') fail(`empty timestamp in column ${c + 1}`);
      timestamp = col.parse(t);
    } else {
      const v = field.trim();
      if (v !== '') metrics.push([col.name, metricValue(v, col.name, c)]);
    }
  }
  if (format.nameFromColumn && name === '') fail('empty metric name in the __name__ column');
  for (const [metric, value] of metrics) {
    const all = [...labels, { name: METRIC_NAME_LABEL, value: format.nameFromColumn ? name : metric }];
    rows.push({ labels: canonicalLabels(all, 'reject'), timestamp, value });
  }
}

function metricValue(field: string, name: string, c: number): number {
  try {
    return parseFloatText(field);
  } catch (e) {
    if (!isLineFailure(e)) throw e;
    return fail(`cannot parse value of metric ${quote(name)} in column ${c + 1}: ${quote(field)}`);
  }
}
