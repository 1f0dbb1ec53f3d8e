// Prometheus text writer for /federate: `name{label="value",…} value timestamp_ms`. Names that are
// not classic identifiers use the quoted form of Prometheus 3 (`{"my.metric","a.b"="v"}`), which
// our parser and Prometheus 3 read back. Staleness markers are never written (a federating server
// must not see a sample that only says "gone").

import type { Labels } from '../common/row.ts';
import { METRIC_NAME_LABEL } from '../common/row.ts';
import { formatFloat } from '../common/float.ts';
import { isStaleNaN } from '../../storageapi/index.ts';

const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** escapeLabelValue escapes \, " and newline as the text format requires. */
export function escapeLabelValue(v: string): string {
  if (!/[\\"\n]/.test(v)) return v;
  return v.replace(/[\\"\n]/g, (ch) => (ch === '\n' ? '\\n' : `\\${ch}`));
}

/**
 * writeSeriesKey renders the part of a line before the value: the metric name and the labels in
 * the given order (sorted Labels give a canonical key). A series without `__name__` is written
 * with labels only, which is not valid exposition text; callers federate named series.
 */
export function writeSeriesKey(labels: Labels): string {
  let name = '';
  const parts: string[] = [];
  for (const l of labels) {
    if (l.name === METRIC_NAME_LABEL) {
      name = l.value;
      continue;
    }
    const n = LABEL_NAME_RE.test(l.name) ? l.name : `"${escapeLabelValue(l.name)}"`;
    parts.push(`${n}="${escapeLabelValue(l.value)}"`);
  }
  if (name !== '' && !METRIC_NAME_RE.test(name)) {
    parts.unshift(`"${escapeLabelValue(name)}"`);
    name = '';
  }
  return parts.length === 0 ? name : `${name}{${parts.join(',')}}`;
}

/**
 * writeSample renders one line (with its trailing "\n"), or "" for a staleness marker. The value
 * is the shortest text that parses back to the same float; NaN and infinities are spelled NaN,
 * +Inf, -Inf. timestamp is integer milliseconds.
 */
export function writeSample(labels: Labels, value: number, timestamp: number): string {
  if (isStaleNaN(value)) return '';
  return `${writeSeriesKey(labels)} ${formatFloat(value)} ${timestamp}\n`;
}

/** writeSamples renders every sample of one series, in order, skipping staleness markers. */
export function writeSamples(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>): string {
  const key = writeSeriesKey(labels);
  let out = '';
  for (let i = 0; i < timestamps.length; i++) {
    const v = values[i]!;
    if (isStaleNaN(v)) continue;
    out += `${key} ${formatFloat(v)} ${timestamps[i]!}\n`;
  }
  return out;
}
