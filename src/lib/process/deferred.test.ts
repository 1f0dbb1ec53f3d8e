import { describe, expect, it } from 'vitest';
import { deferredModule } from './deferred.ts';

describe('deferredModule', () => {
  it('loads the module at the first property read, once, and answers from it', () => {
    let loads = 0;
    const real = { f: (x: number) => x + 1, n: 7 };
    const m = deferredModule(() => (loads++, real)) as typeof real;
    expect(loads).toBe(0);
    expect(m.f(1)).toBe(2);
    expect(m.n).toBe(7);
    expect('f' in m).toBe(true);
    expect('g' in m).toBe(false);
    expect((m as Record<string, unknown>).g).toBeUndefined();
    expect(loads).toBe(1);
  });

  it('throws a failed load\'s error at that read and tries the load again at the next', () => {
    let loads = 0;
    const m = deferredModule(() => {
      if (++loads === 1) throw new Error('cannot load x');
      return { a: 1 };
    }) as { a: number };
    expect(() => m.a).toThrow('cannot load x');
    expect(m.a).toBe(1);
    expect(m.a).toBe(1);
    expect(loads).toBe(2);
  });

  it('loads on a membership test too', () => {
    let loads = 0;
    const m = deferredModule(() => (loads++, { a: 1 }));
    expect('a' in m).toBe(true);
    expect(loads).toBe(1);
  });
});
