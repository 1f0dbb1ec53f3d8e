// BatchBuilder packs series into one buffer as they come: the batch must hold exactly each
// series' items (even when the search lends them and overwrites them after add) and its fields.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RollupSpec } from '../query/index.ts';
import { BatchBuilder } from './batch.ts';
import { BufferPool } from './buffers.ts';

const spec: RollupSpec = {
  func: 'rate', variants: [0], params: [], strParams: [], rangeMs: 300_000, windows: { start: 0, step: 60_000, n: 7 }, fixed: false,
  grid: { start: 0, step: 60_000, n: 7 }, extended: null, lookbackMs: 300_000, edgeMs: 0, stepMs: 60_000,
};

const seriesArb = fc.record({
  chunks: fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 3 }),
  minTs: fc.integer({ min: -1e12, max: 1e12 }),
  maxTs: fc.integer({ min: -1e12, max: 1e12 }),
  dedupMs: fc.integer({ min: 0, max: 60_000 }),
});

describe('BatchBuilder', () => {
  it('packs lent series exactly, batch after batch, with or without pooled memory (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(seriesArb, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 4 }), fc.boolean(), (batches, pooled) => {
        const buffers = pooled ? new BufferPool({ maxBytes: 1 << 20 }) : undefined;
        const b = new BatchBuilder(spec, buffers);
        for (const series of batches) {
          for (const [i, s] of series.entries()) {
            // A lent chunk is reused by the search for the next series: overwrite it after add.
            const lent = s.chunks.map((c) => c.slice());
            b.add({ labels: [{ name: 'i', value: String(i) }], minTs: s.minTs, maxTs: s.maxTs, dedupMs: s.dedupMs, chunks: lent });
            for (const c of lent) c.fill(0xee);
          }
          expect(b.count).toBe(series.length);
          expect(b.work).toBe(series.reduce((n, s) => n + s.chunks.reduce((m, c) => m + c.length, 0) + 7, 0));
          const { labels, batch } = b.take();
          expect(b.count).toBe(0);
          expect(labels.map((l) => l[0]!.value)).toEqual(series.map((_, i) => String(i)));
          expect([...batch.minTs]).toEqual(series.map((s) => s.minTs));
          expect([...batch.maxTs]).toEqual(series.map((s) => s.maxTs));
          expect([...batch.dedupMs]).toEqual(series.map((s) => s.dedupMs));
          for (const [i, s] of series.entries()) {
            const want = Buffer.concat(s.chunks);
            expect(Buffer.from(batch.data.subarray(batch.bounds[i]!, batch.bounds[i + 1]!)).equals(want)).toBe(true);
          }
          expect(batch.bounds.length).toBe(series.length + 1);
          expect(batch.data.length).toBe(batch.bounds[series.length]);
          // Every array is a view of one buffer: the batch crosses threads as one transferable.
          expect(new Set([batch.data, batch.bounds, batch.minTs, batch.maxTs, batch.dedupMs].map((a) => a.buffer)).size).toBe(1);
          buffers?.give(batch.data.buffer as ArrayBuffer);
        }
      }),
      { numRuns: 200 },
    );
  });
});
