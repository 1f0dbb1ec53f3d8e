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
import { ReadBufferPool, SPAN_GAP_BYTES, SPAN_MAX_BYTES, type Wanted, spanEnd } from './span-read.ts';
import type { BlockHeaders } from './part-format.ts';

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

// expectSameSeries checks that two cursors read the same blocks and samples of every series in ids.
function expectSameSeries(x: SeriesBlockCursor, y: SeriesBlockCursor, ids: Float64Array): void {
  const a = new SeriesScratch();
  const b = new SeriesScratch();
  for (const id of ids) {
    a.reset();
    b.reset();
    expect(x.readSeries(id, a)).toBe(y.readSeries(id, b));
    expect(a.ts.subarray(0, a.n)).toEqual(b.ts.subarray(0, b.n));
    expect(a.vals.subarray(0, a.n)).toEqual(b.vals.subarray(0, b.n));
  }
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
      expectSameSeries(spanning, alone, sorted);
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

// headersOf builds a header group of blocks stored one after another from base (value stream).
function headersOf(ids: number[], sizes: number[], base: number, times: [number, number][]): BlockHeaders {
  const n = ids.length;
  const valOffsets = new Float64Array(n);
  for (let i = 0, o = base; i < n; o += sizes[i]!, i++) valOffsets[i] = o;
  return {
    count: n, seriesIds: Float64Array.from(ids), minTs: Float64Array.from(times, (t) => t[0]), maxTs: Float64Array.from(times, (t) => t[1]),
    tsOffsets: valOffsets, valOffsets, rows: new Uint32Array(n).fill(1), tsSizes: Uint32Array.from(sizes), valSizes: Uint32Array.from(sizes),
    tsEnc: new Uint8Array(n), valEnc: new Uint8Array(n),
  };
}

// walkEnd is the reference: the same span walking every block of the group after j, and at the
// group's end (wanted series still to come) one gap more, without guessing past it.
function walkEnd(h: BlockHeaders, j: number, w: Wanted): { end: number; groupEnded: boolean } {
  const offs = h.valOffsets;
  const start = offs[j]!;
  let end = start + h.valSizes[j]!;
  let prev = end;
  for (let k = j + 1; k < h.count; k++) {
    const o = offs[k]!;
    const e = o + h.valSizes[k]!;
    if (o - end > SPAN_GAP_BYTES || e - start > SPAN_MAX_BYTES) return { end, groupEnded: false };
    prev = e;
    const id = h.seriesIds[k]!;
    if (!w.ids.some((x) => x > id - 1)) return { end, groupEnded: false };
    if (w.ids.includes(id) && h.maxTs[k]! >= w.minTs && h.minTs[k]! <= w.maxTs) end = e;
  }
  if (w.ids[w.ids.length - 1]! <= h.seriesIds[h.count - 1]!) return { end, groupEnded: false };
  return { end: Math.min(start + SPAN_MAX_BYTES, Math.max(end, prev + SPAN_GAP_BYTES)), groupEnded: true };
}

const group = fc.array(fc.record({ step: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 40_000 }), t: fc.integer({ min: 0, max: 9 }) }), { minLength: 1, maxLength: 300 })
  .chain((blocks) => fc.record({
    blocks: fc.constant(blocks),
    j: fc.integer({ min: 0, max: blocks.length - 1 }),
    ids: fc.uniqueArray(fc.integer({ min: 1, max: 3 * blocks.length + 50 }), { minLength: 1, maxLength: 400 }),
    minTs: fc.integer({ min: 0, max: 9 }),
    len: fc.integer({ min: 0, max: 9 }),
  }));

describe('spanEnd (how far a search read of wanted blocks reaches)', () => {
  it('reaches where walking every block of the group reaches, and past the group only where the walk reached its end', () => {
    fc.assert(fc.property(group, ({ blocks, j, ids, minTs, len }) => {
      let id = 0;
      const sids = blocks.map((b) => (id += b.step));
      const h = headersOf(sids, blocks.map((b) => b.size), 1000, blocks.map((b) => [b.t, b.t + 1]));
      const w: Wanted = { ids: Float64Array.from([...ids, sids[j]!].filter((x, i, a) => a.indexOf(x) === i).sort((a, b) => a - b)), minTs, maxTs: minTs + len };
      const got = spanEnd(h, j, h.valOffsets, h.valSizes, w);
      const ref = walkEnd(h, j, w);
      const start = h.valOffsets[j]!;
      expect(got).toBeGreaterThanOrEqual(start + h.valSizes[j]!);
      expect(got - start).toBeLessThanOrEqual(Math.max(SPAN_MAX_BYTES, h.valSizes[j]!));
      if (ref.groupEnded) expect(got).toBeGreaterThanOrEqual(ref.end);
      else expect(got).toBe(ref.end);
    }), { numRuns: 500 });
  });

  it('reads on into the next group over the wanted series a gap apart (one series in 170, blocks of ~100 bytes)', () => {
    const ids = Array.from({ length: 256 }, (_, i) => i + 1);
    const h = headersOf(ids, ids.map(() => 100), 0, ids.map(() => [0, 1]));
    const wanted = Float64Array.from({ length: 6 }, (_, i) => 1 + 170 * i); // 1, 171 here; 341, 511, ... next groups
    const end = spanEnd(h, 0, h.valOffsets, h.valSizes, { ids: wanted, minTs: 0, maxTs: 1 });
    // Series 511's block is expected at 510 × 100 bytes: the read reaches it.
    expect(end).toBeGreaterThanOrEqual(511 * 100);
    expect(end).toBeLessThanOrEqual(SPAN_MAX_BYTES);
    // Wanted series far apart, the group's end beyond a gap: the read is the block alone.
    const big = headersOf(ids, ids.map(() => 1000), 0, ids.map(() => [0, 1]));
    expect(spanEnd(big, 0, big.valOffsets, big.valSizes, { ids: Float64Array.from([1, 100_000]), minTs: 0, maxTs: 1 })).toBe(1000);
  });
});

describe('ReadBufferPool (read buffers lent across searches)', () => {
  it('lends kept buffers again, keeps at most maxKept, and drops buffers of another size', () => {
    const pool = new ReadBufferPool(2);
    const a = pool.take();
    const b = pool.take();
    const c = pool.take();
    expect(a.length).toBe(SPAN_MAX_BYTES);
    pool.give(a);
    pool.give(a);
    pool.give(b);
    pool.give(c);
    pool.give(Buffer.alloc(10));
    const again = [pool.take(), pool.take()];
    expect(new Set(again)).toEqual(new Set([a, b]));
    expect(pool.take()).not.toBe(c);
  });

  it('serves searches that release their cursors the same samples as fresh buffers', () => {
    const p = openPart();
    const seen = new Set<Buffer>();
    const pool = new (class extends ReadBufferPool {
      override take(): Buffer {
        const b = super.take();
        seen.add(b);
        return b;
      }
    })(4);
    const ids = Float64Array.from({ length: 60 }, (_, i) => 1 + i * 9);
    for (let round = 0; round < 3; round++) {
      const pooled = new SeriesBlockCursor(p, T, T + 2_000 * 15_000, ids, pool);
      const fresh = new SeriesBlockCursor(p, T, T + 2_000 * 15_000, ids);
      expectSameSeries(pooled, fresh, ids);
      pooled.release();
    }
    // Three searches, each reading the timestamp and value streams: two buffers in all.
    expect(seen.size).toBe(2);
  });
});
