import { type SeriesResult } from '../../lib/query/index.ts';
import { type Labels } from '../../lib/storageapi/index.ts';

// Hand-built JSON for query results: a range result holds millions of points, and building one
// object per point only to stringify it would dominate query latency.

/** formatSampleValue spells a float the way Prometheus' JSON does: "NaN", "+Inf", "-Inf", else shortest form. */
export function formatSampleValue(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v);
}

/** formatTimestampSeconds prints milliseconds as the float seconds Prometheus' JSON uses. */
export function formatTimestampSeconds(ms: number): string {
  return String(ms / 1000);
}

/** labelsJson renders a label set as a JSON object. */
export function labelsJson(labels: Labels): string {
  let s = '{';
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    s += `${i === 0 ? '' : ','}${JSON.stringify(l.name)}:${JSON.stringify(l.value)}`;
  }
  return `${s}}`;
}

/** pointJson renders one [seconds, "value"] pair. */
export function pointJson(ms: number, v: number): string {
  return `[${formatTimestampSeconds(ms)},"${formatSampleValue(v)}"]`;
}

/**
 * matrixJsonParts renders the series of a matrix as the chunks of a JSON array of
 * {"metric","values"}. The series of a range query share their timestamps, so each timestamp's
 * `[seconds,"` prefix is formatted once per response. Each series is built as one string (V8
 * builds these faster than one string per point) and turned into bytes at once, so a response of
 * millions of points never exists as one string: its rope of small strings outlived young
 * collections and raised the resident memory by several times the body's size.
 */
export function matrixJsonParts(matrix: readonly SeriesResult[]): Buffer[] {
  const prefixes = new Map<number, string>();
  const parts: Buffer[] = [];
  for (let k = 0; k < matrix.length; k++) {
    const s = matrix[k]!;
    const ts = s.timestamps;
    const vs = s.values;
    let points = '';
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i]!;
      let prefix = prefixes.get(t);
      if (prefix === undefined) {
        prefix = `,[${formatTimestampSeconds(t)},"`;
        prefixes.set(t, prefix);
      }
      points += `${prefix}${formatSampleValue(vs[i]!)}"]`;
    }
    parts.push(Buffer.from(`${k === 0 ? '[' : ','}{"metric":${labelsJson(s.labels)},"values":[${points.slice(1)}]}`));
  }
  parts.push(Buffer.from(matrix.length === 0 ? '[]' : ']'));
  return parts;
}
