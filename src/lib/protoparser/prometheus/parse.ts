// Prometheus text exposition format parser: `name{label="value",…} value [timestamp_ms]`.
//
// This is the ingestion hot path, so it is written for speed: one pass over char codes per line, no
// regexps, no substrings for numbers, and label objects reused from the previous line when the
// text at the same position spells the same name and value (consecutive lines of one metric family
// usually share most labels). Behaviour follows Prometheus and VictoriaMetrics:
// - `#` lines (HELP, TYPE, comments) and blank lines yield no rows; HELP, TYPE and UNIT lines go
//   to the `metadata` capture when one is given (metadata.ts);
// - anything after the value or timestamp that starts with `#` (OpenMetrics exemplars) is ignored;
// - label values unescape \\, \" and \n; another escaped char is kept with its backslash (lenient);
// - a label with an empty value is the same as no label; a trailing comma in braces is allowed;
// - quoted names (`{"my.metric","label.x"="v"}`, Prometheus 3 UTF-8 syntax) are accepted;
// - a repeated label name rejects the line (the series would be ambiguous);
// - NaN, +Inf, -Inf (any letter case, also Infinity) are values; timestamps are integer ms.

import { BACKSLASH, COMMA, EQ, HASH, LBRACE, QUOTE, RBRACE, SPACE, TAB } from '../common/chars.ts';
import { ErrorSummary } from '../common/parse-error.ts';
import { parseFloatRange, parseIntRange } from '../common/float.ts';
import { fail, quote } from '../common/line-failure.ts';
import { canonicalLabels, METRIC_NAME_LABEL, type Label, type Row } from '../common/row.ts';
import { forEachLine, type ParseResult } from '../common/parse-result.ts';
import type { MetadataCapture } from './metadata.ts';

/** PrometheusParseOptions configure parse. */
export interface PrometheusParseOptions {
  /** Clock (ms) for lines without a timestamp; called once per parse call. */
  readonly now: () => number;
  /** Number of the first line of text (default 1), for error messages when streaming. */
  readonly firstLine?: number;
  /** metadata takes the `# HELP`, `# TYPE` and `# UNIT` lines; absent, they are skipped. */
  readonly metadata?: MetadataCapture | undefined;
}

/** parse parses Prometheus text exposition lines; bad lines are counted and skipped. */
export function parse(text: string, opts: PrometheusParseOptions): ParseResult {
  const p = new LineParser(text, opts.now());
  p.metadata = opts.metadata;
  return p.run(opts.firstLine ?? 1);
}

const RING_SIZE = 8;

/** Sample is the value and timestamp of a line (a reused out-parameter). */
export interface Sample {
  value: number;
  timestamp: number;
}

/**
 * parseSample parses what follows a line's series key s[keyStart, keyEnd): blanks, the value, an
 * optional integer timestamp (default `now`), and an optional `#` comment, up to end. Fills and
 * returns `into`; throws a LineFailure for a bad line.
 */
export function parseSample(s: string, keyStart: number, keyEnd: number, end: number, now: number, into: Sample): Sample {
  let p = keyEnd;
  let c = 0;
  while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
  const v0 = p;
  while (p < end && (c = s.charCodeAt(p)) !== SPACE && c !== TAB) p++;
  if (p === v0) fail(`missing value after ${quote(s.slice(keyStart, keyEnd))}`);
  into.value = parseFloatRange(s, v0, p);
  while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
  into.timestamp = now;
  if (p < end && c !== HASH) {
    const t0 = p;
    while (p < end && (c = s.charCodeAt(p)) !== SPACE && c !== TAB) p++;
    into.timestamp = parseIntRange(s, t0, p, 'timestamp');
    while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
    if (p < end && c !== HASH) fail(`unexpected text after timestamp: ${quote(s.slice(p, end))}`);
  }
  return into;
}

/**
 * scanKey returns where the series key starting at s[start] (not a blank) ends, the way
 * LineParser.line delimits it for a valid line: after the name when no "{" follows, else after the
 * "}" that closes the labels (quotes and escapes inside respected). -1 when there is no closing
 * "}". For an invalid line the result may differ from what line() would report; a caller that only
 * uses it to look up keys of lines that parsed before stays exact (same text, same parse).
 */
export function scanKey(s: string, start: number, end: number): number {
  let c = 0;
  let p = start;
  while (p < end && (c = s.charCodeAt(p)) !== LBRACE && c !== SPACE && c !== TAB) p++;
  let q = p;
  while (q < end && ((c = s.charCodeAt(q)) === SPACE || c === TAB)) q++;
  if (q >= end || c !== LBRACE) return p;
  for (q++; q < end; q++) {
    c = s.charCodeAt(q);
    if (c === RBRACE) return q + 1;
    if (c !== QUOTE) continue;
    for (q++; q < end && (c = s.charCodeAt(q)) !== QUOTE; q++) if (c === BACKSLASH) q++;
    if (q >= end) return -1;
  }
  return -1;
}

/**
 * LineParser parses the lines of one text into Rows: call line() per line (it pushes a row or
 * throws a LineFailure). Exported for the keyed parser, which builds labels only for new keys.
 */
export class LineParser {
  readonly s: string;
  readonly now: number;
  readonly rows: Row[] = [];
  readonly sample: Sample = { value: 0, timestamp: 0 };
  // Labels of the current line in sender order.
  cur: Label[] = [];
  count = 0;
  // Reuse cache: for each label position, the last RING_SIZE distinct labels seen there. Families
  // like node_cpu_seconds_total{cpu,mode} cycle through a few values per position, so most lines
  // allocate no label objects at all.
  ring: Label[][] = [];
  ringNext: number[] = [];
  hasName = false;
  /** metadata takes the HELP/TYPE/UNIT lines (see PrometheusParseOptions). */
  metadata: MetadataCapture | undefined = undefined;

  constructor(s: string, now: number) {
    this.s = s;
    this.now = now;
  }

  run(firstLine: number): ParseResult {
    const errors = new ErrorSummary();
    const lines = forEachLine(this.s, firstLine, errors, (start, end) => this.line(start, end));
    return { rows: this.rows, errors, lines };
  }

  /** line parses s[start, end) (without its line break), pushing a row unless it is blank or a comment. */
  line(start: number, end: number): void {
    const s = this.s;
    let i = start;
    let c = 0;
    while (i < end && ((c = s.charCodeAt(i)) === SPACE || c === TAB)) i++;
    if (i === end) return;
    if (c === HASH) {
      this.metadata?.text(s, i, end, this.now);
      return;
    }
    const keyStart = i;
    this.count = 0;
    this.hasName = false;
    let p = i;
    while (p < end && (c = s.charCodeAt(p)) !== LBRACE && c !== SPACE && c !== TAB) p++;
    if (p > i) this.addName(i, p);
    let q = p;
    while (q < end && ((c = s.charCodeAt(q)) === SPACE || c === TAB)) q++;
    if (q < end && c === LBRACE) p = this.labels(q + 1, end);
    const keyEnd = p;
    if (!this.hasName) fail(p === keyStart ? 'missing metric name' : `missing metric name in ${quote(s.slice(keyStart, keyEnd))}`);
    const sample = parseSample(s, keyStart, keyEnd, end, this.now, this.sample);
    this.rows.push({ labels: this.finish(), timestamp: sample.timestamp, value: sample.value, rawKey: s.slice(keyStart, keyEnd) });
  }

  // labels parses `a="b",…}` starting after "{"; returns the index after "}".
  labels(p: number, end: number): number {
    const s = this.s;
    let c = 0;
    for (;;) {
      while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
      if (p >= end) fail('missing "}" after labels');
      if (c === RBRACE) return p + 1;
      let nameStart = p;
      let nameEnd: number;
      let quotedName: string | undefined;
      if (c === QUOTE) {
        const qEnd = this.closingQuote(p + 1, end);
        quotedName = this.unescape(p + 1, qEnd);
        nameStart = p + 1;
        nameEnd = qEnd;
        p = qEnd + 1;
        while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
        if (p < end && (c === COMMA || c === RBRACE)) {
          if (quotedName === '') fail('empty metric name');
          if (this.hasName) fail(`metric name ${quote(quotedName)} given twice`);
          this.addLabel(METRIC_NAME_LABEL, quotedName);
          this.hasName = true;
          if (c === COMMA) p++;
          continue;
        }
      } else {
        while (p < end && (c = s.charCodeAt(p)) !== EQ && c !== SPACE && c !== TAB && c !== COMMA && c !== RBRACE && c !== QUOTE) p++;
        nameEnd = p;
        while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
      }
      if (p >= end || c !== EQ) fail(`missing "=" after label name ${quote(s.slice(nameStart, nameEnd))}`);
      p++;
      while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
      if (p >= end || c !== QUOTE) fail(`label ${quote(quotedName ?? s.slice(nameStart, nameEnd))} must have a quoted value`);
      p = this.labelValue(nameStart, nameEnd, quotedName, p + 1, end);
      while (p < end && ((c = s.charCodeAt(p)) === SPACE || c === TAB)) p++;
      if (p < end && c === COMMA) p++;
      else if (p >= end || c !== RBRACE) fail(`missing "," or "}" after label ${quote(quotedName ?? s.slice(nameStart, nameEnd))}`);
    }
  }

  // labelValue reads the value starting after its opening quote and records the label; returns the
  // index after the closing quote.
  labelValue(nameStart: number, nameEnd: number, quotedName: string | undefined, v0: number, end: number): number {
    const s = this.s;
    let p = v0;
    let c = 0;
    while (p < end && (c = s.charCodeAt(p)) !== QUOTE && c !== BACKSLASH) p++;
    if (p >= end) fail(`missing closing quote in value of label ${quote(quotedName ?? s.slice(nameStart, nameEnd))}`);
    if (nameEnd === nameStart) fail('empty label name');
    if (c === QUOTE && quotedName === undefined) {
      this.addRange(nameStart, nameEnd, v0, p);
      return p + 1;
    }
    const qEnd = c === QUOTE ? p : this.closingQuote(p, end);
    const name = quotedName ?? s.slice(nameStart, nameEnd);
    this.addLabelChecked(name, this.unescape(v0, qEnd));
    return qEnd + 1;
  }

  // closingQuote finds the unescaped closing quote at or after p.
  closingQuote(p: number, end: number): number {
    const s = this.s;
    for (; p < end; p++) {
      const c = s.charCodeAt(p);
      if (c === QUOTE) return p;
      if (c === BACKSLASH) p++;
    }
    return fail('missing closing quote');
  }

  unescape(from: number, to: number): string {
    const s = this.s;
    const bs = s.indexOf('\\', from);
    if (bs < 0 || bs >= to) return s.slice(from, to);
    let out = '';
    let last = from;
    for (let p = bs; p < to; p++) {
      if (s.charCodeAt(p) !== BACKSLASH) continue;
      const next = s.charCodeAt(p + 1);
      out += s.slice(last, p);
      if (next === BACKSLASH) out += '\\';
      else if (next === QUOTE) out += '"';
      else if (next === 110) out += '\n';
      else out += s.slice(p, p + 2);
      p++;
      last = p + 1;
    }
    return out + s.slice(last, to);
  }

  addName(from: number, to: number): void {
    const hit = this.lookup(this.count, METRIC_NAME_LABEL.length, from, to, -1);
    this.cur[this.count++] = hit ?? this.remember(this.count, { name: METRIC_NAME_LABEL, value: this.s.slice(from, to) });
    this.hasName = true;
  }

  // lookup returns a cached label at position k whose value is s[v0, v1) and whose name is
  // s[n0, n0 + nameLen) (or __name__ when n0 is -1), if any.
  lookup(k: number, nameLen: number, v0: number, v1: number, n0: number): Label | undefined {
    const ring = this.ring[k];
    if (ring === undefined) return undefined;
    const s = this.s;
    const vLen = v1 - v0;
    for (let r = 0; r < ring.length; r++) {
      const l = ring[r]!;
      if (l.value.length !== vLen || l.name.length !== nameLen || !s.startsWith(l.value, v0)) continue;
      if (n0 < 0 ? l.name === METRIC_NAME_LABEL : s.startsWith(l.name, n0)) return l;
    }
    return undefined;
  }

  remember(k: number, l: Label): Label {
    let ring = this.ring[k];
    if (ring === undefined) {
      ring = this.ring[k] = [];
      this.ringNext[k] = 0;
    }
    if (ring.length < RING_SIZE) ring.push(l);
    else {
      const at = this.ringNext[k]!;
      ring[at] = l;
      this.ringNext[k] = (at + 1) % RING_SIZE;
    }
    return l;
  }

  // addRange records a label whose name and value are plain text ranges, reusing a cached label
  // object (or at least its name string) when the text matches.
  addRange(n0: number, n1: number, v0: number, v1: number): void {
    const k = this.count;
    const hit = this.lookup(k, n1 - n0, v0, v1, n0);
    if (hit !== undefined) {
      if (hit.name === METRIC_NAME_LABEL) this.nameFromLabel();
      this.cur[this.count++] = hit;
      return;
    }
    const s = this.s;
    const ring = this.ring[k];
    const same = ring !== undefined && ring.length > 0 ? ring[0]!.name : undefined;
    const name = same !== undefined && same.length === n1 - n0 && s.startsWith(same, n0) ? same : s.slice(n0, n1);
    const value = s.slice(v0, v1);
    if (name === METRIC_NAME_LABEL) {
      if (value === '') return;
      this.nameFromLabel();
    }
    this.cur[this.count++] = this.remember(k, { name, value });
  }

  addLabelChecked(name: string, value: string): void {
    if (name === METRIC_NAME_LABEL) {
      if (value === '') return;
      this.nameFromLabel();
    }
    this.addLabel(name, value);
  }

  nameFromLabel(): void {
    if (this.hasName) fail('metric name given twice');
    this.hasName = true;
  }

  addLabel(name: string, value: string): void {
    this.cur[this.count++] = { name, value };
  }

  // finish builds the row's Labels from the current line.
  finish(): Label[] {
    const n = this.count;
    const out = this.cur.slice(0, n);
    let sorted = true;
    let empty = false;
    for (let k = 0; k < n; k++) {
      const l = out[k]!;
      if (l.value === '') empty = true;
      if (k > 0 && l.name <= out[k - 1]!.name) sorted = false;
    }
    return sorted && !empty ? out : canonicalLabels(out, 'reject');
  }
}
