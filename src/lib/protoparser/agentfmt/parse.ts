// Agent format (Datadog "submit metrics" v1): {"series": [{"metric", "points": [[ts, value], …],
// "tags": ["k:v", …], "host", "device", "type", "interval"}, …]}.
//
// Mapping follows VictoriaMetrics' Datadog integration, so dashboards carry over:
// - `metric` → __name__, sanitized by default (chars outside [0-9a-zA-Z_.] → "_", runs of "_"
//   collapsed, "_" next to "." dropped), as Datadog itself does;
// - `host` → label host, `device` → label device (both only when non-empty);
// - each tag `k:v` → label k=v (split at the first ":"); a tag without ":" keeps its name with the
//   value "no_label_value" (VictoriaMetrics' rule, so such tags stay visible and selectable);
//   a tag named host becomes exported_host so it cannot clobber the host field; a repeated tag
//   keeps its last value;
// - points are [unix seconds (may be fractional), value]; a timestamp ≤ 0 means now;
// - `type` and `interval` are not stored.
// A series with a bad shape is skipped and counted (item `series[i]`); invalid JSON rejects the body.

import { ErrorSummary, ParseError } from '../common/parse-error.ts';
import { fail, isLineFailure, quote } from '../common/line-failure.ts';
import { jsonType, parseJsonDocument } from '../common/json.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import type { RowsAndErrors } from '../common/parse-result.ts';

/** AgentParseOptions configure parse. */
export interface AgentParseOptions {
  /** Clock (ms) for points with a timestamp ≤ 0; called once per parse call. */
  readonly now: () => number;
  /** Sanitize metric and tag names the Datadog way (default true). */
  readonly sanitizeMetricName?: boolean;
}

/** NO_LABEL_VALUE is the value given to a tag without ":". */
export const NO_LABEL_VALUE = 'no_label_value';

/** parse parses an agent-format series body. Throws ParseError when the body is not the expected JSON object. */
export function parse(body: string | Uint8Array, opts: AgentParseOptions): RowsAndErrors {
  const doc = parseJsonDocument(body);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ParseError(`body must be a JSON object; got ${jsonType(doc)}`);
  const series = (doc as Record<string, unknown>).series;
  if (!Array.isArray(series)) throw new ParseError(`"series" must be an array; got ${jsonType(series)}`);
  const now = opts.now();
  const sanitize = opts.sanitizeMetricName !== false ? sanitizeName : (s: string): string => s;
  const rows: Row[] = [];
  const errors = new ErrorSummary();
  for (let i = 0; i < series.length; i++) {
    const mark = rows.length;
    try {
      seriesRows(series[i], now, sanitize, rows);
    } catch (e) {
      if (!isLineFailure(e)) throw e;
      rows.length = mark;
      errors.add(e.reason, { item: `series[${i}]` });
    }
  }
  return { rows, errors };
}

/** sanitizeName applies Datadog's metric-name rules. */
export function sanitizeName(s: string): string {
  return s.replace(/[^0-9a-zA-Z_.]+/g, '_').replace(/_+/g, '_').replace(/_?\._?/g, '.');
}

/** splitTag splits a Datadog tag at its first ":". */
export function splitTag(tag: string): [string, string] {
  const i = tag.indexOf(':');
  return i < 0 ? [tag, NO_LABEL_VALUE] : [tag.slice(0, i), tag.slice(i + 1)];
}

function seriesRows(s: unknown, now: number, sanitize: (s: string) => string, rows: Row[]): void {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) fail(`series must be an object; got ${jsonType(s)}`);
  const o = s as Record<string, unknown>;
  if (typeof o.metric !== 'string' || o.metric === '') fail('missing "metric"');
  const labels: Label[] = [];
  for (const field of ['host', 'device'] as const) {
    const v = o[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') fail(`"${field}" must be a string; got ${jsonType(v)}`);
    labels.push({ name: field, value: v });
  }
  if (o.tags !== undefined && o.tags !== null) {
    if (!Array.isArray(o.tags)) fail(`"tags" must be an array; got ${jsonType(o.tags)}`);
    for (const tag of o.tags) {
      if (typeof tag !== 'string') fail(`tags must be strings; got ${jsonType(tag)}`);
      const [k, v] = splitTag(tag);
      if (k === '') continue;
      labels.push({ name: k === 'host' ? 'exported_host' : sanitize(k), value: v });
    }
  }
  labels.push({ name: METRIC_NAME_LABEL, value: sanitize(o.metric) });
  const canonical = canonicalLabels(labels, 'keepLast');
  if (!Array.isArray(o.points)) fail(`"points" must be an array; got ${jsonType(o.points)}`);
  for (const p of o.points) rows.push(point(p, canonical, now));
}

function point(p: unknown, labels: Label[], now: number): Row {
  if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'number' || typeof p[1] !== 'number') {
    fail(`a point must be [timestamp, value] numbers; got ${quote(JSON.stringify(p) ?? 'undefined')}`);
  }
  const [sec, value] = p as [number, number];
  const ms = Math.round(sec * 1000);
  if (!Number.isSafeInteger(ms)) fail(`timestamp ${sec} is out of range`);
  return { labels, timestamp: sec <= 0 ? now : ms, value };
}
