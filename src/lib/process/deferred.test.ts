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

  it('loads on a membership test too', () => {
    let loads = 0;
    const m = deferredModule(() => (loads++, { a: 1 }));
    expect('a' in m).toBe(true);
    expect(loads).toBe(1);
  });
});
