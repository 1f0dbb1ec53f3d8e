import { describe, expect, it } from 'vitest';
import { CacheGroup, GenCache } from './series-cache.ts';

describe('GenCache', () => {
  it('keeps the working set across rotations and bounds memory', () => {
    const g = new CacheGroup(2000);
    const a = new GenCache<number>(g);
    const b = new GenCache<number>(g);
    a.set('hot', 1);
    for (let i = 0; i < 100; i++) {
      b.set(`k${i}`, i);
      expect(a.get('hot')).toBe(1);
    }
    expect(g.rotations).toBeGreaterThan(5);
    expect(g.bytes).toBeLessThanOrEqual(2000);
    expect(b.get('k0')).toBeUndefined();
    expect(b.get('k99')).toBe(99);
    expect(g.hits).toBeGreaterThan(0);
    expect(g.misses).toBe(1);
    a.clear();
    expect(a.get('hot')).toBeUndefined();
  });
});
