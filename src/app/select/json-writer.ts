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

/** seriesPointsJson renders the points of one series, skipping NaN gaps only when asked. */
export function seriesPointsJson(timestamps: Float64Array, values: Float64Array): string {
  const parts = new Array<string>(timestamps.length);
  for (let i = 0; i < timestamps.length; i++) parts[i] = pointJson(timestamps[i]!, values[i]!);
  return `[${parts.join(',')}]`;
}
