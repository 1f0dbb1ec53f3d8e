// JSON lines export (/api/v1/export): one line per series, or several when maxRowsPerLine cuts a
// long series, each `{"metric":{…},"values":[…],"timestamps":[…]}\n`. Labels keep their order
// (pass sorted Labels; __name__ sorts where it falls). Values use the shortest round-trip decimal;
// JSON has no NaN or infinities, so they are written as the strings "NaN", "Inf", "-Inf", which
// the importer (and VictoriaMetrics') reads back; -0 is written as -0. Staleness markers are
// plain NaN here.

import type { Labels } from '../common/row.ts';

/** writeMetric renders the `"metric":{…}` object of a label set. */
export function writeMetric(labels: Labels): string {
  let out = '{';
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (i > 0) out += ',';
    out += `${JSON.stringify(l.name)}:${JSON.stringify(l.value)}`;
  }
  return `${out}}`;
}

/** jsonValue renders one value as JSON text (see the file comment). */
export function jsonValue(v: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (Number.isFinite(v)) return String(v);
  if (v !== v) return '"NaN"';
  return v > 0 ? '"Inf"' : '"-Inf"';
}

/**
 * writeSeries renders one series as JSON lines. timestamps (integer ms) and values are parallel;
 * maxRowsPerLine > 0 splits the series into lines of at most that many samples (0 = one line).
 * Returns "" for a series without samples.
 */
export function writeSeries(labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>, maxRowsPerLine = 0): string {
  const n = timestamps.length;
  if (n !== values.length) throw new RangeError(`series has ${n} timestamps but ${values.length} values`);
  if (n === 0) return '';
  const step = maxRowsPerLine > 0 ? Math.floor(maxRowsPerLine) : n;
  const head = `{"metric":${writeMetric(labels)},"values":[`;
  let out = '';
  for (let from = 0; from < n; from += step) {
    const to = Math.min(n, from + step);
    const vs: string[] = new Array(to - from);
    const ts: string[] = new Array(to - from);
    for (let i = from; i < to; i++) {
      vs[i - from] = jsonValue(values[i]!);
      ts[i - from] = String(timestamps[i]!);
    }
    out += `${head}${vs.join(',')}],"timestamps":[${ts.join(',')}]}\n`;
  }
  return out;
}
