// OpenTSDB telnet protocol: `put <metric> <timestamp> <value> <tagk>=<tagv> …`.
// The timestamp is unix seconds or, with 13 digits and more (|t| ≥ 1e10), milliseconds, as
// OpenTSDB tells them apart; 0 means now (VictoriaMetrics' convention). Tags need "=", a tag with
// an empty key or value is skipped, a repeated tag keeps its last value. Lines other than `put`
// (OpenTSDB's `version`, `stats`, …) are rejected.

import { parseFloatRange } from '../common/float.ts';
import { fail, quote } from '../common/line-failure.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import { parseLines, type ParseResult } from '../common/parse-result.ts';

/** OpenTsdbParseOptions configure parse. */
export interface OpenTsdbParseOptions {
  /** Clock (ms) for a zero timestamp; called once per parse call. */
  readonly now: () => number;
  readonly firstLine?: number;
}

/** parse parses OpenTSDB telnet `put` lines; bad lines are counted and skipped. */
export function parse(text: string, opts: OpenTsdbParseOptions): ParseResult {
  const now = opts.now();
  return parseLines(text, opts.firstLine ?? 1, (s, start, end, rows) => parseLine(s.slice(start, end), rows, now));
}

/**
 * timestampToMillis converts an OpenTSDB timestamp (seconds, or ms when |t| ≥ 1e10) to ms; 0 and
 * NaN are rejected by the callers' own rules. Shared with the HTTP API parser.
 */
export function timestampToMillis(t: number): number {
  const ms = Math.abs(t) >= 1e10 ? Math.trunc(t) : Math.round(t * 1000);
  return ms;
}

function parseLine(line: string, rows: Row[], now: number): void {
  const parts = line.split(/[ \t]+/).filter((p) => p !== '');
  if (parts.length === 0) return;
  if (parts[0] !== 'put') fail(`expected "put <metric> <timestamp> <value> <tags>"; got ${quote(line)}`);
  if (parts.length < 4) fail(`missing ${['metric', 'timestamp', 'value'][parts.length - 1]} in ${quote(line)}`);
  const [, metric, tsText, valueText] = parts as [string, string, string, string];
  const ts = parseFloatRange(tsText, 0, tsText.length);
  if (!Number.isFinite(ts)) fail(`cannot parse timestamp ${quote(tsText)}`);
  const ms = timestampToMillis(ts);
  if (!Number.isSafeInteger(ms)) fail(`timestamp ${quote(tsText)} is out of range`);
  const value = parseFloatRange(valueText, 0, valueText.length);
  const labels: Label[] = [];
  for (let i = 4; i < parts.length; i++) {
    const tag = parts[i]!;
    const eq = tag.indexOf('=');
    if (eq < 0) fail(`missing "=" in tag ${quote(tag)}`);
    if (eq > 0 && eq < tag.length - 1) labels.push({ name: tag.slice(0, eq), value: tag.slice(eq + 1) });
  }
  labels.push({ name: METRIC_NAME_LABEL, value: metric });
  rows.push({ labels: canonicalLabels(labels, 'keepLast'), timestamp: ts === 0 ? now : ms, value });
}
