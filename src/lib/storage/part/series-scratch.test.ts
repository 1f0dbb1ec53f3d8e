import { describe, expect, it } from 'vitest';
import { ScratchPool, SeriesScratch } from './series-scratch.ts';

describe('ScratchPool', () => {
  it('lends a scratch given back, emptied', () => {
    const pool = new ScratchPool();
    const s = pool.take();
    s.ensure(10);
    s.n = 10;
    pool.give(s);
    const again = pool.take();
    expect(again).toBe(s);
    expect(again.n).toBe(0);
    expect(pool.take()).not.toBe(s);
  });

  it('keeps at most maxKept scratches, each at most maxCapacity samples, and each once', () => {
    const pool = new ScratchPool(2, 2048);
    const big = new SeriesScratch();
    big.ensure(4096);
    pool.give(big);
    expect(pool.take()).not.toBe(big);
    const [a, b, c] = [new SeriesScratch(), new SeriesScratch(), new SeriesScratch()];
    pool.give(a);
    pool.give(a);
    pool.give(b);
    pool.give(c);
    const lent = new Set([pool.take(), pool.take(), pool.take()]);
    expect(lent.has(a) && lent.has(b)).toBe(true);
    expect(lent.has(c)).toBe(false);
    expect(lent.size).toBe(3);
  });
});
