import { describe, expect, it } from 'vitest';
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
