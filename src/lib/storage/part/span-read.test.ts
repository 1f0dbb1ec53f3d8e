import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DataPart } from './data-part.ts';
import { SeriesBlockCursor } from './block-cursors.ts';
import { LruCache } from '../common/lru-cache.ts';
import { PartWriter } from './part-writer.ts';
import { SeriesScratch } from './series-scratch.ts';

const dir = mkdtempSync(join(tmpdir(), 'strata-span-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T = 1_700_000_000_000;
const SERIES = 600; // more than two header groups
// Series i has 1 + (i * 37) % 3000 scrapes (up to one block each side of a cut), values of
// three kinds: constant (tiny blocks), small steps, random (large blocks).
function samplesOf(i: number): [Float64Array, Float64Array] {
  const n = 1 + ((i * 37) % 3000);
  const ts = Float64Array.from({ length: n }, (_, k) => T + k * 15_000 + ((k * i) % 3));
  const vals = Float64Array.from({ length: n }, (_, k) => (i % 3 === 0 ? 7 : i % 3 === 1 ? k * 0.5 : Math.sin(k * i) * 1e6));
  return [ts, vals];
}

let part: DataPart | undefined;
function openPart(): DataPart {
  if (part !== undefined) return part;
  const w = new PartWriter(join(dir, 'p1'), 3);
  for (let i = 1; i <= SERIES; i++) {
    const [ts, vals] = samplesOf(i);
    w.addSeries(i, ts, vals, ts.length);
  }
  w.finish();
  part = DataPart.open(dir, 'p1', new LruCache(1 << 24));
  return part;
}

const query = fc.record({
  ids: fc.uniqueArray(fc.integer({ min: 1, max: SERIES + 5 }), { minLength: 1, maxLength: 200 }),
  from: fc.integer({ min: -1000, max: 3000 }),
  len: fc.integer({ min: 0, max: 3000 }),
});

describe('SpanReader (a search reading nearby wanted blocks at once)', () => {
  it('reads the same samples and stored bytes as reading each block alone', () => {
    const p = openPart();
    fc.assert(fc.property(query, ({ ids, from, len }) => {
      const sorted = Float64Array.from(ids.sort((x, y) => x - y));
      const minTs = T + from * 15_000;
      const maxTs = minTs + len * 15_000;
      const spanning = new SeriesBlockCursor(p, minTs, maxTs, sorted);
      const alone = new SeriesBlockCursor(p, minTs, maxTs);
      const rawSpan = p.rawSearchReader(spanning.wanted);
      const rawAlone = p.rawSearchReader();
      const a = new SeriesScratch();
      const b = new SeriesScratch();
      for (const id of sorted) {
        a.reset();
        b.reset();
        expect(spanning.readSeries(id, a)).toBe(alone.readSeries(id, b));
        expect(a.ts.subarray(0, a.n)).toEqual(b.ts.subarray(0, b.n));
        expect(a.vals.subarray(0, a.n)).toEqual(b.vals.subarray(0, b.n));
      }
      const collector = new SeriesBlockCursor(p, minTs, maxTs, sorted);
      for (const id of sorted) {
        collector.collect(id, (h, j) => {
          const [spanTs, spanVals] = rawSpan(h, j);
          const ts = Buffer.from(spanTs);
          const vals = Buffer.from(spanVals);
          const [ts2, vals2] = rawAlone(h, j);
          expect(ts.equals(ts2)).toBe(true);
          expect(vals.equals(vals2)).toBe(true);
        });
      }
    }), { numRuns: 60 });
  });
});
