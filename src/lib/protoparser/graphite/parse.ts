// Graphite plaintext protocol: `<metric>[;tag=value…] <value> [<unix_seconds>]`.
// Separators are spaces or tabs (carbon-c-relay accepts both). Tags follow the metric path after
// ";"; a tag without "=" or with an empty value is skipped, a repeated tag keeps its last value.
// The timestamp is unix seconds, fractional seconds keep millisecond precision; a missing
// timestamp, -1 or 0 means now (carbon's and VictoriaMetrics' convention).

import { parseFloatRange } from '../common/float.ts';
import { fail, quote } from '../common/line-failure.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import { parseLines, type ParseResult } from '../common/parse-result.ts';

/** GraphiteParseOptions configure parse. */
export interface GraphiteParseOptions {
  /** Clock (ms) for lines without a timestamp; called once per parse call. */
  readonly now: () => number;
  readonly firstLine?: number;
}

/** parse parses Graphite plaintext lines; bad lines are counted and skipped. */
export function parse(text: string, opts: GraphiteParseOptions): ParseResult {
  const now = opts.now();
  return parseLines(text, opts.firstLine ?? 1, (s, start, end, rows) => parseLine(s, start, end, rows, now));
}

const isBlank = (c: number): boolean => c === 32 || c === 9;

// tokens splits s[start, end) on runs of blanks into [from, to) pairs.
function tokens(s: string, start: number, end: number): number[] {
  const out: number[] = [];
  let i = start;
  while (i < end) {
    while (i < end && isBlank(s.charCodeAt(i))) i++;
    if (i === end) break;
    const t = i;
    while (i < end && !isBlank(s.charCodeAt(i))) i++;
    out.push(t, i);
  }
  return out;
}

function parseLine(s: string, start: number, end: number, rows: Row[], now: number): void {
  const t = tokens(s, start, end);
  if (t.length === 0) return;
  if (t.length === 2) fail(`missing value after ${quote(s.slice(t[0], t[1]))}`);
  if (t.length > 6) fail(`unexpected text after timestamp: ${quote(s.slice(t[6], end))}`);
  const labels = metricAndTags(s.slice(t[0], t[1]));
  const value = parseFloatRange(s, t[2]!, t[3]!);
  let timestamp = now;
  if (t.length === 6) {
    const sec = parseFloatRange(s, t[4]!, t[5]!);
    if (!Number.isFinite(sec)) fail(`cannot parse timestamp ${quote(s.slice(t[4], t[5]))}`);
    const ms = Math.round(sec * 1000);
    if (!Number.isSafeInteger(ms)) fail(`timestamp ${quote(s.slice(t[4], t[5]))} is out of range`);
    if (sec !== -1 && sec !== 0) timestamp = ms;
  }
  rows.push({ labels, timestamp, value });
}

/** metricAndTags splits `name;k=v;…` into sorted labels (exported for the Graphite find API). */
export function metricAndTags(s: string): Label[] {
  const semi = s.indexOf(';');
  const name = semi < 0 ? s : s.slice(0, semi);
  if (name === '') fail('metric name cannot be empty');
  const labels: Label[] = [];
  if (semi >= 0) {
    for (const tag of s.slice(semi + 1).split(';')) {
      const eq = tag.indexOf('=');
      if (eq <= 0 || eq === tag.length - 1) continue;
      labels.push({ name: tag.slice(0, eq), value: tag.slice(eq + 1) });
    }
  }
  labels.push({ name: METRIC_NAME_LABEL, value: name });
  return canonicalLabels(labels, 'keepLast');
}
