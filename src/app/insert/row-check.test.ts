import { describe, expect, it } from 'vitest';
import { type MetricRow } from '../../lib/storageapi/index.ts';
import { InvalidRows, MAX_TIMESTAMP_MS } from './row-check.ts';

const row = (timestamp: number, labels: Record<string, string> = { __name__: 'up', job: 'a' }): MetricRow => ({
  labels: Object.entries(labels).map(([name, value]) => ({ name, value })), timestamp, value: 1,
});

describe('InvalidRows', () => {
  it('keeps storable rows and counts the others with the first reason', () => {
    const f = (rows: MetricRow[], wantKept: number[], wantText: string | undefined) => {
      const inv = new InvalidRows();
      const kept = inv.filter(rows);
      expect(kept.map((r) => r.timestamp)).toEqual(wantKept);
      expect(inv.count).toBe(rows.length - wantKept.length);
      expect(inv.count === 0 ? undefined : inv.describe()).toBe(wantText);
    };
    // All good: the batch itself comes back.
    f([row(0), row(MAX_TIMESTAMP_MS), row(1.4)], [0, MAX_TIMESTAMP_MS, 1.4], undefined);
    // Before 1970, after 9999, not a number.
    f([row(5), row(-5), row(MAX_TIMESTAMP_MS + 1), row(NaN), row(6)], [5, 6],
      '3 rows were rejected; first: timestamp -5 of up{job="a"} is not a time between 1970 and 9999 in milliseconds');
    // No labels left (extra_label with an empty value removed them all).
    f([row(7, {})], [], '1 row was rejected; first: a row has no labels left once extra_label removed the empty ones');
  });

  it('returns the same array when nothing is filtered, so the hot path does not copy', () => {
    const rows = [row(1), row(2)];
    expect(new InvalidRows().filter(rows)).toBe(rows);
  });
});
