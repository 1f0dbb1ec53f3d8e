import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distinctTimestamps, TimestampPrefixes } from './timestamp-prefixes.ts';

const series = (ts: number[]) => ({ labels: [], timestamps: Float64Array.from(ts), values: new Float64Array(ts.length) });

describe('TimestampPrefixes', () => {
  it('finds every timestamp of every series, sorted or not, on a grid or scattered', () => {
    const ts = fc.array(fc.oneof(
      fc.integer({ min: 0, max: 50 }).map((i) => 1_795_000_000_000 + i * 60_000),
      fc.integer({ min: -1e9, max: 1e9 }).map((i) => i * 1000),
      fc.constantFrom(0, -0, 999, 1000, 1e18 - 1000, 1e18, 1e18 + 1e6, 9_999_999_999_999_000, Number.MAX_SAFE_INTEGER),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    ), { maxLength: 30 });
    fc.assert(fc.property(fc.array(ts, { maxLength: 6 }), fc.boolean(), (lists, sorted) => {
      const matrix = lists.map((l) => series(sorted ? [...l].sort((a, b) => a - b) : l));
      const all = [...new Set(lists.flat().map((t) => (t === 0 ? 0 : t)))].sort((a, b) => a - b);
      // -0 and 0 are one timestamp (they print alike); which of the two stands for it does not matter.
      expect(Array.from(distinctTimestamps(matrix), (t) => (t === 0 ? 0 : t))).toEqual(all);
      const p = new TimestampPrefixes(matrix, (ms) => String(ms / 1000));
      for (const s of matrix) {
        let k = 0;
        for (const t of s.timestamps) {
          k = p.find(k, t);
          expect(p.bytes.subarray(p.starts[k]!, p.starts[k + 1]!).toString('latin1')).toBe(`[${String(t / 1000)},"`);
          k++;
        }
      }
    }));
  });

  it('keeps the grid of a range answer once, whatever the number of series', () => {
    const grid = Array.from({ length: 1440 }, (_, i) => 1_795_000_000_000 + i * 60_000);
    const matrix = [series(grid.slice(10)), series(grid), series(grid.filter((_, i) => i % 7 === 0)), series(grid.slice(0, 5))];
    expect(Array.from(distinctTimestamps(matrix))).toEqual(grid);
  });
});
