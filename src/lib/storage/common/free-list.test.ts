import { describe, expect, it } from 'vitest';
import { FreeList } from './free-list.ts';

describe('FreeList', () => {
  it('makes objects when none is kept, hands kept ones out again, keeps at most maxKept and none twice', () => {
    let made = 0;
    const list = new FreeList(() => ({ n: ++made }), 2);
    const a = list.take();
    const b = list.take();
    const c = list.take();
    expect([a.n, b.n, c.n]).toEqual([1, 2, 3]);
    list.give(a);
    list.give(a);
    list.give(b);
    list.give(c);
    expect(new Set([list.take(), list.take()])).toEqual(new Set([a, b]));
    expect(list.take().n).toBe(4);
  });
});
