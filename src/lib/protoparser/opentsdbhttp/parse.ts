// OpenTSDB HTTP /api/put body: one data point object or an array of them,
//   {"metric": "sys.cpu", "timestamp": 1700000000, "value": 42.5, "tags": {"host": "a"}}
// timestamp is unix seconds, or ms when |t| ≥ 1e10 (OpenTSDB's rule); missing or 0 means now.
// value may be a number or a numeric string (OpenTSDB accepts both). Tag values that are numbers or
// booleans are turned into strings; empty ones are skipped. A bad data point is skipped and
// counted (item `[i]`), the others are kept; invalid JSON rejects the whole body.

import { ErrorSummary } from '../common/parse-error.ts';
import { parseFloatText } from '../common/float.ts';
import { fail, isLineFailure, quote } from '../common/line-failure.ts';
import { jsonType, parseJsonDocument } from '../common/json.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import type { RowsAndErrors } from '../common/parse-result.ts';
import { timestampToMillis } from '../opentsdb/parse.ts';

/** OpenTsdbHttpParseOptions configure parse. */
export interface OpenTsdbHttpParseOptions {
  /** Clock (ms) for data points without a timestamp; called once per parse call. */
  readonly now: () => number;
}

/** parse parses an /api/put body. Throws ParseError when the body is not JSON. */
export function parse(body: string | Uint8Array, opts: OpenTsdbHttpParseOptions): RowsAndErrors {
  const doc = parseJsonDocument(body);
  const now = opts.now();
  const rows: Row[] = [];
  const errors = new ErrorSummary();
  const points = Array.isArray(doc) ? doc : [doc];
  for (let i = 0; i < points.length; i++) {
    try {
      rows.push(dataPoint(points[i], now));
    } catch (e) {
      if (!isLineFailure(e)) throw e;
      errors.add(e.reason, { item: Array.isArray(doc) ? `[${i}]` : 'body' });
    }
  }
  return { rows, errors };
}

function dataPoint(p: unknown, now: number): Row {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) fail(`data point must be an object; got ${jsonType(p)}`);
  const o = p as Record<string, unknown>;
  if (typeof o.metric !== 'string' || o.metric === '') fail('missing "metric"');
  const labels: Label[] = [];
  if (o.tags !== undefined && o.tags !== null) {
    if (typeof o.tags !== 'object' || Array.isArray(o.tags)) fail(`"tags" must be an object; got ${jsonType(o.tags)}`);
    for (const [name, v] of Object.entries(o.tags as Record<string, unknown>)) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') fail(`tag ${quote(name)} must be a string; got ${jsonType(v)}`);
      labels.push({ name, value: String(v) });
    }
  }
  labels.push({ name: METRIC_NAME_LABEL, value: o.metric });
  return { labels: canonicalLabels(labels, 'keepLast'), timestamp: timestamp(o.timestamp, now), value: value(o.value) };
}

function timestamp(t: unknown, now: number): number {
  if (t === undefined || t === null || t === 0) return now;
  const n = typeof t === 'string' && t !== '' ? Number(t) : t;
  if (typeof n !== 'number' || !Number.isFinite(n)) fail(`cannot parse "timestamp" ${quote(JSON.stringify(t) ?? '')}`);
  const ms = timestampToMillis(n);
  if (!Number.isSafeInteger(ms)) fail(`"timestamp" ${n} is out of range`);
  return ms === 0 ? now : ms;
}

function value(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    try {
      return parseFloatText(v);
    } catch (e) {
      if (!isLineFailure(e)) throw e;
    }
  }
  return fail(`cannot parse "value" ${quote(JSON.stringify(v) ?? 'undefined')}`);
}
