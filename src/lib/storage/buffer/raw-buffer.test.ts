import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unionSeriesIds } from './buffer-flush.ts';
import { BufferMemory, BufferPool, RawBuffer } from './raw-buffer.ts';

describe('BufferPool', () => {
  // Memory comes back marked as recycled (its pages are resident); trim drops all of it.
  it('recycles released buffer memory and drops it on trim', () => {
    const pool = new BufferPool(8, 2);
    const fresh = new RawBuffer(1, pool);
    expect(fresh.recycled).toBe(false);
    const f = (released: number, wantIdle: number) => {
      for (let i = 0; i < released; i++) new RawBuffer(i, pool, new BufferMemory(8)).release();
      expect(pool.idleBytes).toBe(wantIdle);
    };
    const one = new BufferMemory(8).bytes;
    f(1, one);
    // At most `keep` memories are kept.
    f(3, 2 * one);
    const reused = new RawBuffer(9, pool);
    expect(reused.recycled).toBe(true);
    expect(pool.trim()).toBe(one);
    expect(pool.idleBytes).toBe(0);
    expect(pool.trim()).toBe(0);
    // Memory grown past maxRows is not kept.
    const big = new RawBuffer(10, pool, new BufferMemory(8));
    const slots = Int32Array.from({ length: 9 }, () => big.slotOf(1));
    big.appendBatch(slots, new Float64Array(9), new Float64Array(9), 9);
    big.release();
    expect(pool.idleBytes).toBe(0);
  });
});

describe('BufferPool slots', () => {
  // Fresh memory starts with room for as many series as a buffer of the pool needed before.
  it('sizes fresh memory from the most slots a buffer needed', () => {
    const pool = new BufferPool(64, 0);
    const first = new RawBuffer(1, pool);
    for (let id = 1; id <= 3000; id++) first.slotOf(id);
    const next = new RawBuffer(2, pool);
    const before = next.bytes;
    for (let id = 1; id <= 3000; id++) next.slotOf(id);
    expect(next.bytes).toBe(before);
    expect(next.slots).toBe(3000);
    expect(next.slotOf(2999)).toBe(2998);
  });
});

describe('unionSeriesIds', () => {
  const bufferOf = (ids: number[], gen: number) => {
    const b = new RawBuffer(gen);
    for (const id of ids) b.slotOf(id);
    return b;
  };
  // The union of the buffers' series, ascending, each once — as a Set and a sort would give it.
  it('merges the buffers\' series IDs ascending without duplicates', () => {
    fc.assert(fc.property(fc.array(fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { maxLength: 60 }), { maxLength: 5 }), (lists) => {
      const got = Array.from(unionSeriesIds(lists.map((ids, i) => bufferOf(ids, i))));
      const want = [...new Set(lists.flat())].sort((a, b) => a - b);
      expect(got).toEqual(want);
    }));
  });
});
