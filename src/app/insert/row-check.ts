import type { MetricRow } from '../../lib/storageapi/index.ts';

/**
 * MAX_TIMESTAMP_MS is the last millisecond of year 9999. Storage keeps timestamps in
 * [0, MAX_TIMESTAMP_MS] (src/lib/storage/FORMAT.md "Samples") and refuses others with a plain
 * Error that the insert path could not tell from a disk failure, so rows outside it are caught
 * here: a client's bad timestamp is a 400 that does not stop the rest of the body.
 */
export const MAX_TIMESTAMP_MS = 253_402_300_799_999;

/**
 * InvalidRows filters out rows storage would refuse as malformed (a timestamp outside
 * 1970..9999, or no labels left once extra_label removed some), counting them and keeping the
 * first reason for the 400 body. Not safe for concurrent use; one per request.
 */
export class InvalidRows {
  count = 0;
  first: string | undefined;

  /** filter returns the storable rows of a batch (the batch itself when all are). */
  filter(rows: MetricRow[]): MetricRow[] {
    let out: MetricRow[] | undefined;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const reason = invalidReason(r);
      if (reason === undefined) {
        out?.push(r);
        continue;
      }
      out ??= rows.slice(0, i);
      this.count++;
      this.first ??= reason;
    }
    return out ?? rows;
  }

  /** describe is the 400 text, such as `2 rows were rejected; first: timestamp -5 of up{job="a"} is …`. */
  describe(): string {
    return `${this.count} ${this.count === 1 ? 'row was' : 'rows were'} rejected; first: ${this.first ?? ''}`;
  }
}

/** hasInvalidTimestamp reports whether any of timestamps[0, n) is one InvalidRows would filter out. */
export function hasInvalidTimestamp(timestamps: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const t = Math.round(timestamps[i]!);
    if (!(t >= 0 && t <= MAX_TIMESTAMP_MS)) return true;
  }
  return false;
}

function invalidReason(r: MetricRow): string | undefined {
  if (r.labels.length === 0) return 'a row has no labels left once extra_label removed the empty ones';
  const t = Math.round(r.timestamp);
  if (!(t >= 0 && t <= MAX_TIMESTAMP_MS)) return `timestamp ${r.timestamp} of ${describeSeries(r)} is not a time between 1970 and 9999 in milliseconds`;
  return undefined;
}

function describeSeries(r: MetricRow): string {
  const name = r.labels.find((l) => l.name === '__name__')?.value ?? '';
  const rest = r.labels.filter((l) => l.name !== '__name__').map((l) => `${l.name}=${JSON.stringify(l.value)}`);
  const text = `${name}{${rest.join(',')}}`;
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
